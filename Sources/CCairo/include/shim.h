// cairo (image surfaces, PNG) and pango through pangocairo (text layout with fontconfig
// fonts): one drawing stack, one module.
//
// Not through pkg-config: pango's pkg-config closure carries glib's `-pthread`, which
// SwiftPM refuses with a warning on every build. cairo's header needs no include path;
// of pango only the few stable, public entry points below are used, declared here with
// the types of pango 1.50's headers (enums are C ints; the structs stay opaque). The
// rendering tests call every one of them.
#ifndef CCAIRO_SHIM_H
#define CCAIRO_SHIM_H
#include <cairo/cairo.h>
#include <cairo/cairo-pdf.h>

typedef struct _PangoFontMap PangoFontMap;
typedef struct _PangoContext PangoContext;
typedef struct _PangoLayout PangoLayout;
typedef struct _PangoFontDescription PangoFontDescription;
typedef struct {
  int x;
  int y;
  int width;
  int height;
} PangoRectangle;

// PANGO_SCALE: pango units per device unit.
#define CCAIRO_PANGO_SCALE 1024
// PangoWeight, PangoAlignment and PangoWrapMode values.
#define CCAIRO_PANGO_WEIGHT_NORMAL 400
#define CCAIRO_PANGO_WEIGHT_BOLD 700
#define CCAIRO_PANGO_ALIGN_LEFT 0
#define CCAIRO_PANGO_ALIGN_CENTER 1
#define CCAIRO_PANGO_ALIGN_RIGHT 2
#define CCAIRO_PANGO_WRAP_CHAR 1
#define CCAIRO_PANGO_WRAP_WORD_CHAR 2

void g_object_unref(void *object);

PangoFontMap *pango_cairo_font_map_new(void);
PangoContext *pango_font_map_create_context(PangoFontMap *fontmap);
void pango_cairo_context_set_resolution(PangoContext *context, double dpi);
void pango_cairo_context_set_font_options(PangoContext *context,
                                          const cairo_font_options_t *options);
void pango_cairo_update_context(cairo_t *cr, PangoContext *context);

PangoLayout *pango_layout_new(PangoContext *context);
void pango_layout_set_text(PangoLayout *layout, const char *text, int length);
void pango_layout_set_font_description(PangoLayout *layout, const PangoFontDescription *desc);
void pango_layout_set_width(PangoLayout *layout, int width);
void pango_layout_set_wrap(PangoLayout *layout, int wrap);
void pango_layout_set_alignment(PangoLayout *layout, int alignment);
void pango_layout_get_extents(PangoLayout *layout, PangoRectangle *ink_rect,
                              PangoRectangle *logical_rect);
void pango_cairo_update_layout(cairo_t *cr, PangoLayout *layout);
void pango_cairo_show_layout(cairo_t *cr, PangoLayout *layout);

PangoFontDescription *pango_font_description_new(void);
void pango_font_description_free(PangoFontDescription *desc);
void pango_font_description_set_family(PangoFontDescription *desc, const char *family);
void pango_font_description_set_weight(PangoFontDescription *desc, int weight);
void pango_font_description_set_size(PangoFontDescription *desc, int size);
void pango_font_description_set_absolute_size(PangoFontDescription *desc, double size);

// Binds the stubs in lazy.c to the drawing libraries (pangocairo, with pango, cairo and gobject), opened with dlopen: labeld links none
// of it and loads it on first use. Nothing in it may be called before.
void ccairo_bind(void *handle);

#endif
