#ifndef CCUPS_SHIM_H
#define CCUPS_SHIM_H
// libcups (Debian: libcups2-dev). Debian 12 ships no cups.pc, so Package.swift names no
// pkgConfig: the headers are in /usr/include. labeld links no libcups: see lazy.c.
#include <cups/cups.h>
// The raster stream reader and writer (PWG raster and Apple URF): the header comes with
// libcupsimage2-dev, the functions are libcups' own.
#include <cups/raster.h>

// CUPS_FORMAT_RAW is a string macro; handing it over as a function keeps the one spelling
// of the raw document format in libcups' header.
static inline const char *ccups_format_raw(void) { return CUPS_FORMAT_RAW; }

// Binds the stubs in lazy.c to libcups, opened with dlopen: labeld links none
// of it and loads it on first use. Nothing in it may be called before.
void ccups_bind(void *handle);

#endif
