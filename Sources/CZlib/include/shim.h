// zlib (Debian zlib1g-dev, which libcairo2-dev brings): deflate and CRC-32 for the PNG
// previews labeld writes itself.
#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H
#include <zlib.h>

// Binds the stubs in lazy.c to libz, opened with dlopen: labeld links none of it and
// loads it on first use. Nothing in it may be called before.
void czlib_bind(void *handle);

#endif
