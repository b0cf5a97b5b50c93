// labeld's HTTP endpoint in C: libmicrohttpd (Debian libmicrohttpd-dev) parses HTTP and
// runs TLS on GnuTLS (libgnutls28-dev), which also makes the self-signed certificate and the
// hashes. Swift sees only this header: opaque handles and plain values. Both libraries are
// opened on first use (chttp_bind), like the drawing stack: a labeld without
// `--listen-http` never maps them.
#ifndef CHTTP_H
#define CHTTP_H
#include <stddef.h>
#include <stdint.h>

// Binds the stubs (lazy-mhd.c, lazy-gnutls.c) to the two libraries, opened with dlopen.
// Nothing below may be called before.
void chttp_bind(void *microhttpd, void *gnutls);

typedef struct chttp_server chttp_server;
typedef struct chttp_request chttp_request;
typedef struct chttp_upgraded chttp_upgraded;

// What labeld needs to know of a request. Strings are NULL when the header is absent.
typedef struct {
  const char *method;
  const char *path;
  const char *authorization;
  const char *origin;
  const char *host;
  const char *upgrade;
  const char *connection;
  const char *websocket_key;
  const char *websocket_version;
  const char *sec_fetch_site;
  const char *websocket_protocol;
  const char *content_type;
  const char *content_length;
  const char *transfer_encoding;
} chttp_request_info;

// Strings in a request's info live for the call only.
// Every request, once its headers are read: the connection is suspended until labeld
// answers it with chttp_respond or chttp_accept_websocket, from any thread, exactly once.
typedef void (*chttp_request_fn)(void *context, chttp_request *request,
                                 const chttp_request_info *info);
// A WebSocket handshake answered: `fd` is the connection's socket from now on (plain, or
// a socketpair whose other end libmicrohttpd's TLS feeds); `tag` is what
// chttp_accept_websocket was given; `early` counts bytes the client sent before the
// handshake's answer (RFC 6455 §4.1 forbids it). Close it with chttp_close_upgraded only.
typedef void (*chttp_upgrade_fn)(void *context, uint64_t tag, int fd, chttp_upgraded *handle,
                                 size_t early);
// A body labeld reads (chttp_read_body), on libmicrohttpd's thread, in order: `ended` 0 with
// a chunk (`data`, `size` > 0, valid for the call only); 1 once, when the body is complete;
// -1 once, instead, when the request ends before that (the client left, timed out, or the
// server stops). `tag` is what chttp_read_body was given.
typedef void (*chttp_body_fn)(void *context, uint64_t tag, const void *data, size_t size,
                              int ended);

typedef struct {
  int listen_fd;              // bound and listening; the server does not close it
  int tls;                    // serve TLS with the credentials given to chttp_set_credentials
  unsigned connection_limit;  // connections at once, upgraded ones included
  size_t memory_limit;        // per connection: the request's headers must fit
  unsigned timeout_seconds;   // an HTTP connection idle this long is closed
} chttp_options;

// Starts serving on options->listen_fd with one thread of libmicrohttpd's. NULL on failure
// with a message in `error` (of `error_size` bytes).
chttp_server *chttp_start(const chttp_options *options, chttp_request_fn on_request,
                          chttp_upgrade_fn on_upgrade, chttp_body_fn on_body, void *context,
                          char *error, size_t error_size);
// Stops: every upgraded connection must be closed first. Frees the server.
void chttp_stop(chttp_server *server);

// Reads `request`'s body (instead of answering it now): its chunks go to on_body with
// `tag`; answer it as usual, once the body has ended or earlier to refuse it (what is still
// sent is then read and dropped, up to 16 MiB, after which the client is cut off). 0 when
// it was answered already (nothing will come to on_body), else 1.
int chttp_read_body(chttp_request *request, uint64_t tag);
// Answers `request` (once). `headers` is "Name: value\n" lines or NULL; the body is copied.
// A request whose client has gone is only let go of.
void chttp_respond(chttp_request *request, unsigned status, const char *headers,
                   const void *body, size_t size);
// Answers a WebSocket handshake with 101, `accept` as Sec-WebSocket-Accept and `protocol`
// (NULL: none) as Sec-WebSocket-Protocol.
void chttp_accept_websocket(chttp_request *request, const char *accept, const char *protocol,
                            uint64_t tag);
// Closes an upgraded connection's socket `fd` (the only way), at once.
void chttp_close_upgraded(chttp_upgraded *handle, int fd);

// TLS: the certificate chain and key (PEM) the server presents from now on; 0 on success,
// else a GnuTLS error code with its text in `error`. New connections use them at once.
int chttp_set_credentials(chttp_server *server, const char *cert_pem, size_t cert_size,
                          const char *key_pem, size_t key_size, char *error,
                          size_t error_size);

// A self-signed certificate (ECDSA P-256, SHA-256, ten years) for `hostname`, localhost,
// 127.0.0.1 and ::1; PEM written into the buffers (sizes in, lengths out). 0 on success.
int chttp_make_self_signed(const char *hostname, char *cert_pem, size_t *cert_size,
                           char *key_pem, size_t *key_size, char *error, size_t error_size);
// The SHA-256 of the first certificate in `cert_pem` (DER), 32 bytes. 0 on success.
int chttp_certificate_sha256(const char *cert_pem, size_t size, uint8_t out[32]);
// SHA-1 (WebSocket handshake, RFC 6455 §4.2.2) and SHA-256 (tokens) of `data`.
void chttp_sha1(const void *data, size_t size, uint8_t out[20]);
void chttp_sha256(const void *data, size_t size, uint8_t out[32]);

#endif
