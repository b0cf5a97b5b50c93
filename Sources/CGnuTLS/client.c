// LabelKit's TLS client (see cgnutls.h). GnuTLS 3.7: one session per connection, its
// credentials its own; the check of the server's certificate runs inside the handshake
// (gnutls_certificate_set_verify_function), so a wrong certificate ends the handshake
// before the app's first byte (the token) is written.
#ifdef __linux__
#include "cgnutls.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

// The GnuTLS functions used, looked up once into this table (not defined under their own
// names: labeld's CHTTP defines those, and both may be linked into one test binary).
#define FUNCTIONS(X)                                                                        \
  X(int, gnutls_init, (gnutls_session_t *, unsigned int))                                   \
  X(void, gnutls_deinit, (gnutls_session_t))                                                \
  X(int, gnutls_set_default_priority, (gnutls_session_t))                                   \
  X(int, gnutls_certificate_allocate_credentials, (gnutls_certificate_credentials_t *))     \
  X(void, gnutls_certificate_free_credentials, (gnutls_certificate_credentials_t))          \
  X(int, gnutls_certificate_set_x509_system_trust, (gnutls_certificate_credentials_t))      \
  X(void, gnutls_certificate_set_verify_function,                                           \
    (gnutls_certificate_credentials_t, gnutls_certificate_verify_function *))               \
  X(int, gnutls_credentials_set, (gnutls_session_t, gnutls_credentials_type_t, void *))     \
  X(int, gnutls_server_name_set, (gnutls_session_t, gnutls_server_name_type_t,              \
                                  const void *, size_t))                                    \
  X(void, gnutls_session_set_verify_cert, (gnutls_session_t, const char *, unsigned))       \
  X(void, gnutls_session_set_ptr, (gnutls_session_t, void *))                               \
  X(void *, gnutls_session_get_ptr, (gnutls_session_t))                                     \
  X(void, gnutls_transport_set_int2, (gnutls_session_t, int, int))                          \
  X(void, gnutls_handshake_set_timeout, (gnutls_session_t, unsigned int))                   \
  X(int, gnutls_handshake, (gnutls_session_t))                                              \
  X(void, gnutls_record_set_timeout, (gnutls_session_t, unsigned int))                      \
  X(ssize_t, gnutls_record_send, (gnutls_session_t, const void *, size_t))                  \
  X(ssize_t, gnutls_record_recv, (gnutls_session_t, void *, size_t))                        \
  X(int, gnutls_error_is_fatal, (int))                                                      \
  X(const char *, gnutls_strerror, (int))                                                   \
  X(const gnutls_datum_t *, gnutls_certificate_get_peers, (gnutls_session_t, unsigned int *)) \
  X(int, gnutls_hash_fast, (gnutls_digest_algorithm_t, const void *, size_t, void *))       \
  X(unsigned int, gnutls_session_get_verify_cert_status, (gnutls_session_t))

#define FIELD(ret, name, params) ret(*name) params;
static struct {
  FUNCTIONS(FIELD)
} tls;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[256];

// Debian's soname, then the development link.
static void load(void) {
  void *handle = dlopen("libgnutls.so.30", RTLD_NOW | RTLD_LOCAL);
  if (!handle) handle = dlopen("libgnutls.so", RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    snprintf(load_error, sizeof load_error, "cannot load GnuTLS (libgnutls.so.30): %s",
             dlerror());
    return;
  }
#define LOOKUP(ret, name, params)                                                     \
  if (!(*(void **)&tls.name = dlsym(handle, #name))) {                                \
    snprintf(load_error, sizeof load_error, "GnuTLS has no %s: too old", #name);      \
    return;                                                                           \
  }
  FUNCTIONS(LOOKUP)
}

int cgnutls_load(char *error, size_t error_size) {
  pthread_once(&once, load);
  if (load_error[0]) {
    snprintf(error, error_size, "%s", load_error);
    return -1;
  }
  return 0;
}

struct cgnutls_session {
  gnutls_session_t session;
  gnutls_certificate_credentials_t credentials;
  int pinned;
  uint8_t pin[32];
  // Set by the verify function when the certificate was not the pinned one.
  int mismatch;
  uint8_t seen[32];
};

// During the handshake: the leaf certificate's SHA-256 must be the pin (0 accepts).
static int verify_pin(gnutls_session_t session) {
  struct cgnutls_session *s = tls.gnutls_session_get_ptr(session);
  unsigned int count = 0;
  const gnutls_datum_t *chain = tls.gnutls_certificate_get_peers(session, &count);
  if (!chain || count == 0) {
    s->mismatch = 1;
    return -1;
  }
  if (tls.gnutls_hash_fast(GNUTLS_DIG_SHA256, chain[0].data, chain[0].size, s->seen) < 0 ||
      memcmp(s->seen, s->pin, 32) != 0) {
    s->mismatch = 1;
    return -1;
  }
  return 0;
}

static void hex(const uint8_t *bytes, char *out) {
  for (int i = 0; i < 32; i++) sprintf(out + 3 * i, i < 31 ? "%02X:" : "%02X", bytes[i]);
}

cgnutls_session *cgnutls_connect(int fd, const char *host, const uint8_t *pin,
                                 unsigned timeout_ms, int *outcome, char *error,
                                 size_t error_size) {
  *outcome = CGNUTLS_FAILED;
  if (cgnutls_load(error, error_size) != 0) return NULL;
  struct cgnutls_session *s = calloc(1, sizeof *s);
  if (!s) {
    snprintf(error, error_size, "out of memory");
    return NULL;
  }
  int rc = tls.gnutls_certificate_allocate_credentials(&s->credentials);
  if (rc < 0) goto failed;
  rc = tls.gnutls_init(&s->session, GNUTLS_CLIENT | GNUTLS_NO_SIGNAL);
  if (rc < 0) {
    s->session = NULL;
    goto failed;
  }
  tls.gnutls_session_set_ptr(s->session, s);
  if (pin) {
    s->pinned = 1;
    memcpy(s->pin, pin, 32);
    tls.gnutls_certificate_set_verify_function(s->credentials, verify_pin);
  } else {
    rc = tls.gnutls_certificate_set_x509_system_trust(s->credentials);
    if (rc < 0) goto failed;
    tls.gnutls_session_set_verify_cert(s->session, host, 0);
  }
  // TLS 1.2 and 1.3 with the system's default priorities (TLS 1.0/1.1 are off in them).
  if ((rc = tls.gnutls_set_default_priority(s->session)) < 0) goto failed;
  if ((rc = tls.gnutls_credentials_set(s->session, GNUTLS_CRD_CERTIFICATE, s->credentials)) < 0)
    goto failed;
  // SNI names a host, never an address (RFC 6066 §3).
  unsigned char address[16];
  if (inet_pton(AF_INET, host, address) != 1 && inet_pton(AF_INET6, host, address) != 1) {
    if ((rc = tls.gnutls_server_name_set(s->session, GNUTLS_NAME_DNS, host, strlen(host))) < 0)
      goto failed;
  }
  tls.gnutls_transport_set_int2(s->session, fd, fd);
  tls.gnutls_handshake_set_timeout(s->session, timeout_ms);
  do {
    rc = tls.gnutls_handshake(s->session);
  } while (rc < 0 && !tls.gnutls_error_is_fatal(rc));
  if (rc < 0) {
    if (s->mismatch) {
      char want[97], seen[97];
      hex(s->pin, want);
      hex(s->seen, seen);
      *outcome = CGNUTLS_PIN_MISMATCH;
      snprintf(error, error_size,
               "the server's certificate (SHA-256 %s) is not the pinned one (%s)", seen, want);
    } else if (rc == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR) {
      *outcome = CGNUTLS_UNTRUSTED;
      unsigned status = tls.gnutls_session_get_verify_cert_status(s->session);
      snprintf(error, error_size,
               "the server's certificate is not trusted for %s%s%s (pin its SHA-256 to trust "
               "it alone)",
               host, status & GNUTLS_CERT_SIGNER_NOT_FOUND ? ": no known authority signed it" : "",
               status & GNUTLS_CERT_UNEXPECTED_OWNER ? ": it names another host" : "");
    } else if (rc == GNUTLS_E_TIMEDOUT) {
      *outcome = CGNUTLS_TIMED_OUT;
      snprintf(error, error_size, "the TLS handshake took longer than %u ms", timeout_ms);
    } else {
      snprintf(error, error_size, "the TLS handshake failed: %s", tls.gnutls_strerror(rc));
    }
    cgnutls_free(s);
    return NULL;
  }
  *outcome = CGNUTLS_CONNECTED;
  return s;

failed:
  snprintf(error, error_size, "TLS could not be set up: %s", tls.gnutls_strerror(rc));
  cgnutls_free(s);
  return NULL;
}

int cgnutls_send(cgnutls_session *s, const void *data, size_t size) {
  const char *p = data;
  while (size > 0) {
    ssize_t n = tls.gnutls_record_send(s->session, p, size);
    if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED) continue;
    if (n <= 0) return -1;
    p += n;
    size -= (size_t)n;
  }
  return 0;
}

long cgnutls_recv(cgnutls_session *s, void *data, size_t size, unsigned timeout_ms) {
  tls.gnutls_record_set_timeout(s->session, timeout_ms);
  while (1) {
    ssize_t n = tls.gnutls_record_recv(s->session, data, size);
    if (n >= 0) return (long)n;
    if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED) continue;
    if (n == GNUTLS_E_TIMEDOUT) return -2;
    // A peer that closes without TLS's close_notify ends the stream all the same.
    if (n == GNUTLS_E_PREMATURE_TERMINATION) return 0;
    return -1;
  }
}

void cgnutls_free(cgnutls_session *s) {
  if (!s) return;
  if (s->session) tls.gnutls_deinit(s->session);
  if (s->credentials) tls.gnutls_certificate_free_credentials(s->credentials);
  free(s);
}
#endif
