// PDF pages through poppler-glib, opened on first use. Declared here with the types of
// poppler 22.12's and GLib 2.74's headers (structs opaque) rather than through
// pkg-config, whose GLib closure carries `-pthread`, which SwiftPM refuses (as CCairo).
#include "cpoppler.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct _GBytes GBytes;
typedef struct _PopplerDocument PopplerDocument;
typedef struct _PopplerPage PopplerPage;
typedef struct {
  unsigned int domain;
  int code;
  char *message;
} GError;

static struct {
  GBytes *(*bytes_new)(const void *data, size_t size);
  void (*bytes_unref)(GBytes *bytes);
  void (*object_unref)(void *object);
  void (*error_free)(GError *error);
  PopplerDocument *(*document_new_from_bytes)(GBytes *bytes, const char *password,
                                              GError **error);
  int (*get_n_pages)(PopplerDocument *document);
  PopplerPage *(*get_page)(PopplerDocument *document, int index);
  void (*page_get_size)(PopplerPage *page, double *width, double *height);
  void (*render_for_printing)(PopplerPage *page, void *cairo);
} lib;

struct cpoppler_document {
  GBytes *bytes;
  PopplerDocument *document;
};

int cpoppler_bind(void *handle) {
  lib.bytes_new = dlsym(handle, "g_bytes_new");
  lib.bytes_unref = dlsym(handle, "g_bytes_unref");
  lib.object_unref = dlsym(handle, "g_object_unref");
  lib.error_free = dlsym(handle, "g_error_free");
  lib.document_new_from_bytes = dlsym(handle, "poppler_document_new_from_bytes");
  lib.get_n_pages = dlsym(handle, "poppler_document_get_n_pages");
  lib.get_page = dlsym(handle, "poppler_document_get_page");
  lib.page_get_size = dlsym(handle, "poppler_page_get_size");
  lib.render_for_printing = dlsym(handle, "poppler_page_render_for_printing");
  return lib.bytes_new && lib.bytes_unref && lib.object_unref && lib.error_free &&
                 lib.document_new_from_bytes && lib.get_n_pages && lib.get_page &&
                 lib.page_get_size && lib.render_for_printing
             ? 0
             : -1;
}

cpoppler_document *cpoppler_open(const void *data, size_t size, char *error,
                                 size_t error_size) {
  cpoppler_document *d = calloc(1, sizeof *d);
  if (d == NULL) {
    snprintf(error, error_size, "out of memory");
    return NULL;
  }
  d->bytes = lib.bytes_new(data, size);
  GError *failure = NULL;
  d->document = lib.document_new_from_bytes(d->bytes, NULL, &failure);
  if (d->document == NULL) {
    snprintf(error, error_size, "%s",
             failure && failure->message ? failure->message : "not a PDF poppler can read");
    if (failure) lib.error_free(failure);
    lib.bytes_unref(d->bytes);
    free(d);
    return NULL;
  }
  return d;
}

void cpoppler_close(cpoppler_document *d) {
  if (d == NULL) return;
  lib.object_unref(d->document);
  lib.bytes_unref(d->bytes);
  free(d);
}

int cpoppler_page_count(cpoppler_document *d) { return lib.get_n_pages(d->document); }

int cpoppler_page_size(cpoppler_document *d, int index, double *width, double *height) {
  PopplerPage *page = lib.get_page(d->document, index);
  if (page == NULL) return -1;
  lib.page_get_size(page, width, height);
  lib.object_unref(page);
  return 0;
}

int cpoppler_render(cpoppler_document *d, int index, void *cairo) {
  PopplerPage *page = lib.get_page(d->document, index);
  if (page == NULL) return -1;
  lib.render_for_printing(page, cairo);
  lib.object_unref(page);
  return 0;
}
