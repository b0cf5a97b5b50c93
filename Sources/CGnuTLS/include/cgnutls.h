// LabelKit's TLS client on Linux, in C: a GnuTLS session over a connected TCP socket, the
// server's certificate checked (pinned SHA-256, or the system's trust and the host name)
// during the handshake, before anything of the app's is sent. Swift sees only this
// header. GnuTLS (libgnutls28-dev for the header; libgnutls30 at run time) is opened with
// dlopen on first use: an app that never opens a wss:// route never maps it, and no
// GnuTLS symbol is defined here (its functions are looked up into a table of this
// file's own), so it links beside labeld's CHTTP in one binary.
#ifndef CGNUTLS_H
#define CGNUTLS_H
#include <stddef.h>
#include <stdint.h>

// Opens libgnutls (once; later calls return the first outcome): 0, or -1 with why in
// `error`.
int cgnutls_load(char *error, size_t error_size);

typedef struct cgnutls_session cgnutls_session;

// How cgnutls_connect ended.
enum {
  CGNUTLS_CONNECTED = 0,
  CGNUTLS_PIN_MISMATCH = 1,   // the certificate is not the pinned one
  CGNUTLS_UNTRUSTED = 2,      // no pin, and the system's trust or the host name refuse it
  CGNUTLS_TIMED_OUT = 3,      // the handshake took longer than allowed
  CGNUTLS_FAILED = 4,         // anything else (the peer left, not TLS, no common cipher)
};

// Runs a TLS 1.2+ client handshake on `fd` (connected, blocking) for `host` (sent as SNI
// unless it is an address). With `pin` (32 bytes: the SHA-256 of the leaf certificate's
// DER) only that certificate is accepted, whoever signed it; without, the system's CAs
// and `host`. NULL on failure, with `outcome` set and why in `error`. The session does not
// own `fd`.
cgnutls_session *cgnutls_connect(int fd, const char *host, const uint8_t *pin,
                                 unsigned timeout_ms, int *outcome, char *error,
                                 size_t error_size);
// Writes all of `data`: 0, or -1 when the connection failed. One writer at a time; may
// run while another thread is in cgnutls_recv.
int cgnutls_send(cgnutls_session *session, const void *data, size_t size);
// Reads what there is, waiting up to `timeout_ms` (0: for ever): the count, 0 at the end
// of the stream, -1 on failure, -2 when the time passed first.
long cgnutls_recv(cgnutls_session *session, void *data, size_t size, unsigned timeout_ms);
// Frees the session (not the socket). Its owner calls it once, after every other call.
void cgnutls_free(cgnutls_session *session);

#endif
