// poppler's GLib interface (Debian libpoppler-glib8; headers libpoppler-glib-dev): a PDF's
// pages drawn with cairo. One small C file owns every poppler and GLib object: Swift
// holds an opaque document, whose one owner frees it. Opened on first use (cpoppler_bind),
// in the process that renders documents (labeld runs it apart from the daemon, with
// limits); Swift sees only this header. `cairo` is a cairo_t from CCairo.
#ifndef CPOPPLER_H
#define CPOPPLER_H
#include <stddef.h>

typedef struct cpoppler_document cpoppler_document;

// Binds to libpoppler-glib (and the GLib it brings), opened with dlopen. 0 on success.
int cpoppler_bind(void *handle);

// Opens the PDF in `data` (copied). NULL with a message in `error` when it is not a PDF
// poppler can read (or needs a password).
cpoppler_document *cpoppler_open(const void *data, size_t size, char *error, size_t error_size);
void cpoppler_close(cpoppler_document *document);
int cpoppler_page_count(cpoppler_document *document);
// The page's size in points (1/72 in); 0 on success.
int cpoppler_page_size(cpoppler_document *document, int index, double *width, double *height);
// Draws page `index` onto `cairo` for printing (its transformation already set). 0 on
// success.
int cpoppler_render(cpoppler_document *document, int index, void *cairo);

#endif
