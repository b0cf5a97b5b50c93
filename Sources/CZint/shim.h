// libzint (Debian libzint-dev, no pkg-config file): barcode symbols as module matrices.
#ifndef CZINT_SHIM_H
#define CZINT_SHIM_H
#include <zint.h>

// Whether module (row, col) of an encoded symbol is dark. libzint packs each row's
// modules into bytes least significant bit first (its own module_is_set is not exported).
static inline int czint_module(const struct zint_symbol *symbol, int row, int col) {
  return (symbol->encoded_data[row][col >> 3] >> (col & 7)) & 1;
}
#endif
