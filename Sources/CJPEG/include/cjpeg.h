// libjpeg (Debian libjpeg62-turbo, headers libjpeg-dev): a JPEG read to 8-bit grey. In C
// because libjpeg reports errors by longjmp, which Swift cannot take part in. The library
// is opened on first use (cjpeg_bind); Swift sees only this header.
#ifndef CJPEG_H
#define CJPEG_H
#include <stddef.h>
#include <stdint.h>

// Binds to libjpeg, opened with dlopen. 0 on success; otherwise nothing below may be
// called.
int cjpeg_bind(void *handle);

// Reads the JPEG in `data` as 8-bit grey (0 black), one byte a pixel, into a buffer it
// allocates (free with cjpeg_free). Refuses an image of more than `max_pixels` pixels from
// its header, before any pixel is decoded. `x_dpi`/`y_dpi` are its JFIF density (0 when
// it has none). 0 on success, else a message in `error`.
int cjpeg_decode_grey(const void *data, size_t size, size_t max_pixels, uint8_t **pixels,
                      int *width, int *height, int *x_dpi, int *y_dpi, char *error,
                      size_t error_size);
void cjpeg_free(uint8_t *pixels);

#endif
