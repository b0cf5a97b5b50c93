// libpng (Debian libpng-dev, which libcairo2-dev brings): its simplified reading API, for
// the 8-bit greyscale PNGs labeld turns into dots without going through cairo.
#ifndef CPNG_SHIM_H
#define CPNG_SHIM_H
#include <png.h>

// Binds the stubs in lazy.c to libpng, opened with dlopen: labeld links none of it and
// loads it on first use. Nothing in it may be called before.
void cpng_bind(void *handle);

#endif
