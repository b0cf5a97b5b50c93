// The GnuTLS headers, for client.c only (not part of the module map: Swift sees
// cgnutls.h).
#ifndef CGNUTLS_SHIM_H
#define CGNUTLS_SHIM_H
#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>
#endif
