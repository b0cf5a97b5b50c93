// The library headers, for this module's C files and scripts/lazy-stubs.py (which writes
// lazy-mhd.c and lazy-gnutls.c from these prototypes). Not part of the module map: Swift
// sees chttp.h only.
#ifndef CHTTP_SHIM_H
#define CHTTP_SHIM_H
#include <sys/types.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdint.h>
#include <microhttpd.h>
#include <gnutls/gnutls.h>
#include <gnutls/abstract.h>
#include <gnutls/crypto.h>
#include <gnutls/x509.h>
#endif
