// libzint (Debian libzint-dev, no pkg-config file): barcode symbols as module matrices.
#ifndef CZINT_SHIM_H
#define CZINT_SHIM_H
#include <zint.h>

// Whether module (row, col) of an encoded symbol is dark. libzint packs each row's
// modules into bytes least significant bit first (its own module_is_set is not exported).
static inline int czint_module(const struct zint_symbol *symbol, int row, int col) {
  return (symbol->encoded_data[row][col >> 3] >> (col & 7)) & 1;
}

// Binds the stubs in lazy.c to libzint, opened with dlopen: labeld links none
// of it and loads it on first use. Nothing in it may be called before.
void czint_bind(void *handle);

#endif
