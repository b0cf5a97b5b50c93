// TLS credentials and hashes, on GnuTLS (the library libmicrohttpd runs TLS on).
#include "shim.h"
#include "chttp.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_CHAIN 8

// GnuTLS's free is a variable, not a function: no stub can stand in for it.
static gnutls_free_function release_gnutls;

void chttp_bind_free(void *gnutls) {
  gnutls_free_function *variable = dlsym(gnutls, "gnutls_free");
  __atomic_store_n(&release_gnutls, variable ? *variable : NULL, __ATOMIC_RELEASE);
}

typedef struct {
  gnutls_pcert_st chain[MAX_CHAIN];
  unsigned count;
  gnutls_privkey_t key;
} credentials;

// One set for every listener (labeld has one certificate). A handshake holds the pointers
// it was given for its duration, so the set replaced by a reload is kept until the next
// one: handshakes take milliseconds, reloads are made by people.
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static credentials *current, *previous;

static void release(credentials *c) {
  if (c == NULL) return;
  for (unsigned i = 0; i < c->count; i++) gnutls_pcert_deinit(&c->chain[i]);
  if (c->key) gnutls_privkey_deinit(c->key);
  free(c);
}

static void say(char *error, size_t size, const char *what, int code) {
  if (size > 0) snprintf(error, size, "%s: %s", what, gnutls_strerror(code));
}

int chttp_set_credentials(chttp_server *server, const char *cert_pem, size_t cert_size,
                          const char *key_pem, size_t key_size, char *error,
                          size_t error_size) {
  (void)server;
  credentials *c = calloc(1, sizeof *c);
  if (c == NULL) return GNUTLS_E_MEMORY_ERROR;
  gnutls_datum_t cert = {(unsigned char *)cert_pem, (unsigned)cert_size};
  gnutls_datum_t key = {(unsigned char *)key_pem, (unsigned)key_size};
  unsigned count = MAX_CHAIN;
  int rc = gnutls_pcert_list_import_x509_raw(c->chain, &count, &cert, GNUTLS_X509_FMT_PEM, 0);
  if (rc < 0) {
    say(error, error_size, "the certificate", rc);
    free(c);
    return rc;
  }
  c->count = count;
  if ((rc = gnutls_privkey_init(&c->key)) < 0 ||
      (rc = gnutls_privkey_import_x509_raw(c->key, &key, GNUTLS_X509_FMT_PEM, NULL, 0)) < 0) {
    say(error, error_size, "the key", rc);
    release(c);
    return rc;
  }
  // The key must be the certificate's: sign and verify a probe.
  gnutls_pubkey_t pub = NULL;
  gnutls_datum_t probe = {(unsigned char *)"labeld", 6}, signature = {NULL, 0};
  if ((rc = gnutls_pubkey_init(&pub)) >= 0 &&
      (rc = gnutls_pubkey_import_x509_raw(pub, &cert, GNUTLS_X509_FMT_PEM, 0)) >= 0 &&
      (rc = gnutls_privkey_sign_data(c->key, GNUTLS_DIG_SHA256, 0, &probe, &signature)) >= 0) {
    gnutls_sign_algorithm_t algorithm =
        gnutls_pk_to_sign(gnutls_pubkey_get_pk_algorithm(pub, NULL), GNUTLS_DIG_SHA256);
    rc = gnutls_pubkey_verify_data2(pub, algorithm, 0, &probe, &signature);
  }
  gnutls_free_function free_data = __atomic_load_n(&release_gnutls, __ATOMIC_ACQUIRE);
  if (signature.data && free_data) free_data(signature.data);
  if (pub) gnutls_pubkey_deinit(pub);
  if (rc < 0) {
    say(error, error_size, "the key does not match the certificate", rc);
    release(c);
    return rc;
  }
  pthread_mutex_lock(&lock);
  credentials *stale = previous;
  previous = current;
  current = c;
  pthread_mutex_unlock(&lock);
  release(stale);
  return 0;
}

int chttp_retrieve_credentials(gnutls_session_t session, const gnutls_datum_t *names, int count,
                               const gnutls_pk_algorithm_t *algorithms, int algorithm_count,
                               gnutls_pcert_st **certificates, unsigned int *certificate_count,
                               gnutls_privkey_t *key) {
  (void)session;
  (void)names;
  (void)count;
  (void)algorithms;
  (void)algorithm_count;
  pthread_mutex_lock(&lock);
  credentials *c = current;
  pthread_mutex_unlock(&lock);
  if (c == NULL) return -1;
  *certificates = c->chain;
  *certificate_count = c->count;
  *key = c->key;
  return 0;
}

#define CHECK(what, call)            \
  if ((rc = (call)) < 0) {           \
    say(error, error_size, what, rc); \
    goto done;                       \
  }

int chttp_make_self_signed(const char *hostname, char *cert_pem, size_t *cert_size,
                           char *key_pem, size_t *key_size, char *error, size_t error_size) {
  gnutls_x509_privkey_t key = NULL;
  gnutls_x509_crt_t crt = NULL;
  int rc;
  unsigned char serial[16];
  const unsigned char v4[4] = {127, 0, 0, 1};
  const unsigned char v6[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  time_t now = time(NULL);
  CHECK("a key", gnutls_x509_privkey_init(&key));
  CHECK("a key", gnutls_x509_privkey_generate(
                     key, GNUTLS_PK_ECDSA, GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0));
  CHECK("a certificate", gnutls_x509_crt_init(&crt));
  CHECK("a certificate", gnutls_x509_crt_set_version(crt, 3));
  CHECK("a serial number", gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof serial));
  serial[0] &= 0x7F;  // positive (RFC 5280 §4.1.2.2)
  CHECK("a serial number", gnutls_x509_crt_set_serial(crt, serial, sizeof serial));
  CHECK("the validity", gnutls_x509_crt_set_activation_time(crt, now - 3600));
  CHECK("the validity", gnutls_x509_crt_set_expiration_time(crt, now + 3650L * 24 * 3600));
  CHECK("the name", gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, hostname,
                                                  (unsigned)strlen(hostname)));
  CHECK("the names", gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_DNSNAME, hostname,
                                                          (unsigned)strlen(hostname),
                                                          GNUTLS_FSAN_SET));
  CHECK("the names", gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_DNSNAME, "localhost",
                                                          9, GNUTLS_FSAN_APPEND));
  CHECK("the names",
        gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, v4, 4, GNUTLS_FSAN_APPEND));
  CHECK("the names", gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, v6, 16,
                                                          GNUTLS_FSAN_APPEND));
  CHECK("the key", gnutls_x509_crt_set_key(crt, key));
  CHECK("the constraints", gnutls_x509_crt_set_basic_constraints(crt, 0, -1));
  CHECK("the key usage", gnutls_x509_crt_set_key_usage(crt, GNUTLS_KEY_DIGITAL_SIGNATURE));
  CHECK("the key purpose", gnutls_x509_crt_set_key_purpose_oid(crt, GNUTLS_KP_TLS_WWW_SERVER, 0));
  CHECK("the signature", gnutls_x509_crt_sign2(crt, crt, key, GNUTLS_DIG_SHA256, 0));
  CHECK("the certificate", gnutls_x509_crt_export(crt, GNUTLS_X509_FMT_PEM, cert_pem, cert_size));
  CHECK("the key", gnutls_x509_privkey_export_pkcs8(key, GNUTLS_X509_FMT_PEM, NULL,
                                                    GNUTLS_PKCS_PLAIN, key_pem, key_size));
done:
  if (crt) gnutls_x509_crt_deinit(crt);
  if (key) gnutls_x509_privkey_deinit(key);
  return rc < 0 ? rc : 0;
}

int chttp_certificate_sha256(const char *cert_pem, size_t size, uint8_t out[32]) {
  gnutls_x509_crt_t crt = NULL;
  gnutls_datum_t data = {(unsigned char *)cert_pem, (unsigned)size};
  size_t length = 32;
  int rc = gnutls_x509_crt_init(&crt);
  if (rc >= 0) rc = gnutls_x509_crt_import(crt, &data, GNUTLS_X509_FMT_PEM);
  if (rc >= 0) rc = gnutls_x509_crt_get_fingerprint(crt, GNUTLS_DIG_SHA256, out, &length);
  if (crt) gnutls_x509_crt_deinit(crt);
  return rc < 0 ? rc : 0;
}

void chttp_sha1(const void *data, size_t size, uint8_t out[20]) {
  gnutls_hash_fast(GNUTLS_DIG_SHA1, data, size, out);
}

void chttp_sha256(const void *data, size_t size, uint8_t out[32]) {
  gnutls_hash_fast(GNUTLS_DIG_SHA256, data, size, out);
}
