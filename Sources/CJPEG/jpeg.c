// JPEG to grey through libjpeg, opened on first use: every libjpeg object lives within one
// call of cjpeg_decode_grey, and its errors (a longjmp from inside the library) end that
// call with a message instead of the process.
#include "cjpeg.h"

#include <dlfcn.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

static struct {
  struct jpeg_error_mgr *(*std_error)(struct jpeg_error_mgr *);
  void (*create_decompress)(j_decompress_ptr, int, size_t);
  void (*mem_src)(j_decompress_ptr, const unsigned char *, unsigned long);
  int (*read_header)(j_decompress_ptr, boolean);
  boolean (*start_decompress)(j_decompress_ptr);
  JDIMENSION (*read_scanlines)(j_decompress_ptr, JSAMPARRAY, JDIMENSION);
  boolean (*finish_decompress)(j_decompress_ptr);
  void (*destroy_decompress)(j_decompress_ptr);
} lib;

int cjpeg_bind(void *handle) {
  lib.std_error = dlsym(handle, "jpeg_std_error");
  lib.create_decompress = dlsym(handle, "jpeg_CreateDecompress");
  lib.mem_src = dlsym(handle, "jpeg_mem_src");
  lib.read_header = dlsym(handle, "jpeg_read_header");
  lib.start_decompress = dlsym(handle, "jpeg_start_decompress");
  lib.read_scanlines = dlsym(handle, "jpeg_read_scanlines");
  lib.finish_decompress = dlsym(handle, "jpeg_finish_decompress");
  lib.destroy_decompress = dlsym(handle, "jpeg_destroy_decompress");
  return lib.std_error && lib.create_decompress && lib.mem_src && lib.read_header &&
                 lib.start_decompress && lib.read_scanlines && lib.finish_decompress &&
                 lib.destroy_decompress
             ? 0
             : -1;
}

struct failure {
  struct jpeg_error_mgr manager;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

static void on_error(j_common_ptr info) {
  struct failure *f = (struct failure *)info->err;
  f->manager.format_message(info, f->message);
  longjmp(f->jump, 1);
}

// Warnings (a corrupt but readable stream) are not errors: the image is printed as read.
static void on_message(j_common_ptr info, int level) {
  (void)info;
  (void)level;
}

void cjpeg_free(uint8_t *pixels) { free(pixels); }

int cjpeg_decode_grey(const void *data, size_t size, size_t max_pixels, uint8_t **pixels,
                      int *width, int *height, int *x_dpi, int *y_dpi, char *error,
                      size_t error_size) {
  struct jpeg_decompress_struct info;
  struct failure failure;
  // volatile: read after a longjmp.
  uint8_t *volatile out = NULL;
  *pixels = NULL;
  if (size == 0 || size > (size_t)0xFFFFFFFF) {
    snprintf(error, error_size, "the JPEG is empty or too large to read");
    return -1;
  }
  memset(&info, 0, sizeof info);
  info.err = lib.std_error(&failure.manager);
  failure.manager.error_exit = on_error;
  failure.manager.emit_message = on_message;
  failure.message[0] = 0;
  if (setjmp(failure.jump)) {
    snprintf(error, error_size, "the JPEG cannot be read: %s", failure.message);
    lib.destroy_decompress(&info);
    free(out);
    return -1;
  }
  lib.create_decompress(&info, JPEG_LIB_VERSION, sizeof info);
  lib.mem_src(&info, data, (unsigned long)size);
  lib.read_header(&info, TRUE);
  if (info.image_width == 0 || info.image_height == 0 ||
      (size_t)info.image_width > max_pixels / (size_t)info.image_height) {
    snprintf(error, error_size, "the JPEG is %u x %u pixels: more than %zu", info.image_width,
             info.image_height, max_pixels);
    lib.destroy_decompress(&info);
    return -1;
  }
  info.out_color_space = JCS_GRAYSCALE;
  lib.start_decompress(&info);
  size_t w = info.output_width, h = info.output_height;
  if (info.output_components != 1 || w == 0 || h == 0 || w > max_pixels / h) {
    snprintf(error, error_size, "the JPEG does not decode to grey");
    lib.destroy_decompress(&info);
    return -1;
  }
  out = malloc(w * h);
  if (out == NULL) {
    snprintf(error, error_size, "out of memory for a %zu x %zu JPEG", w, h);
    lib.destroy_decompress(&info);
    return -1;
  }
  while (info.output_scanline < info.output_height) {
    JSAMPROW row = (JSAMPROW)(out + (size_t)info.output_scanline * w);
    if (lib.read_scanlines(&info, &row, 1) != 1) break;
  }
  lib.finish_decompress(&info);
  int xd = 0, yd = 0;
  if (info.saw_JFIF_marker && info.X_density > 0 && info.Y_density > 0) {
    if (info.density_unit == 1) {  // dots per inch
      xd = info.X_density;
      yd = info.Y_density;
    } else if (info.density_unit == 2) {  // dots per cm
      xd = (int)(info.X_density * 2.54 + 0.5);
      yd = (int)(info.Y_density * 2.54 + 0.5);
    }
  }
  lib.destroy_decompress(&info);
  *pixels = out;
  *width = (int)w;
  *height = (int)h;
  *x_dpi = xd;
  *y_dpi = yd;
  return 0;
}
