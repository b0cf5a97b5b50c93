// The HTTP server: libmicrohttpd with one polling thread of its own (epoll). Every request
// is suspended once its headers are read and handed to labeld, which answers it from any
// thread; a request whose body labeld wants has it delivered in chunks, in order, on
// libmicrohttpd's thread, and is answered once the body is read (or earlier, to refuse
// it). A WebSocket handshake's socket is handed over once the 101 answer is sent, and
// labeld's own event loop serves it from then on. libmicrohttpd owns its daemon and the
// connections it serves; labeld owns nothing here but its answers.
#include "shim.h"
#include "chttp.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

void chttp_bind_mhd(void *handle);
void chttp_bind_gnutls(void *handle);
void chttp_bind_free(void *gnutls);

// Variadic, so not a stub of lazy-mhd.c: found here.
typedef enum MHD_Result (*upgrade_action_fn)(struct MHD_UpgradeResponseHandle *,
                                             enum MHD_UpgradeAction, ...);
static upgrade_action_fn upgrade_action;
// Variadic too: the connection's own socket, under TLS (where labeld gets a socketpair).
typedef const union MHD_ConnectionInfo *(*connection_info_fn)(struct MHD_Connection *,
                                                              enum MHD_ConnectionInfoType, ...);
static connection_info_fn connection_info;

void chttp_bind(void *microhttpd, void *gnutls) {
  chttp_bind_mhd(microhttpd);
  chttp_bind_gnutls(gnutls);
  chttp_bind_free(gnutls);
  __atomic_store_n(&upgrade_action, (upgrade_action_fn)dlsym(microhttpd, "MHD_upgrade_action"),
                   __ATOMIC_RELEASE);
  __atomic_store_n(&connection_info,
                   (connection_info_fn)dlsym(microhttpd, "MHD_get_connection_info"),
                   __ATOMIC_RELEASE);
}

struct chttp_server {
  struct MHD_Daemon *daemon;
  chttp_request_fn on_request;
  chttp_upgrade_fn on_upgrade;
  chttp_body_fn on_body;
  void *context;
  char *error;  // where the logger writes while starting (NULL after)
  size_t error_size;
};

// What happens to a request's body.
enum body_mode {
  BODY_UNWANTED,   // labeld answers from the headers alone; what arrives is dropped
  BODY_STARTING,   // labeld wants it: the next call (the header call again) starts it
  BODY_RECEIVING,  // chunks go to on_body
  BODY_ENDED,      // every chunk was delivered (and the end said)
};

// After an early answer (a refusal mid-body) the rest is read and dropped, up to this
// much; a client that sends more is cut off (libmicrohttpd cannot answer mid-body).
#define DISCARD_LIMIT ((uint64_t)16 << 20)

// Shared by labeld's answer (any thread) and libmicrohttpd's thread, under `lock`. Freed
// when both have let go: libmicrohttpd when the request completes (on_completed), labeld
// when it answers (chttp_respond, chttp_accept_websocket), so an answer after the client
// went away touches nothing of libmicrohttpd's.
struct chttp_request {
  pthread_mutex_t lock;
  chttp_server *server;
  struct MHD_Connection *connection;
  unsigned status;
  struct MHD_Response *response;  // NULL: labeld could not build one (the client is closed)
  int answered;                   // set, with the two above, before the connection resumes
  int suspended;                  // the connection waits for labeld's answer
  int gone;                       // libmicrohttpd is done with it (the client left, or stop)
  int refs;                       // libmicrohttpd's and labeld's
  enum body_mode body;
  int sink_open;       // labeld's sink has had neither its end nor its abandonment
  uint64_t discarded;  // bytes dropped after an early answer
  uint64_t tag;
};

static void release(chttp_request *request) {
  pthread_mutex_lock(&request->lock);
  int left = --request->refs;
  pthread_mutex_unlock(&request->lock);
  if (left == 0) {
    if (request->response) MHD_destroy_response(request->response);
    pthread_mutex_destroy(&request->lock);
    free(request);
  }
}

static const char *header(struct MHD_Connection *connection, const char *name) {
  return MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
}

// Queues labeld's answer, if it has come; otherwise suspends the connection until it does.
// Called on libmicrohttpd's thread only.
static enum MHD_Result answer_or_wait(chttp_request *request) {
  pthread_mutex_lock(&request->lock);
  if (!request->answered) {
    request->suspended = 1;
    MHD_suspend_connection(request->connection);
    pthread_mutex_unlock(&request->lock);
    return MHD_YES;
  }
  struct MHD_Response *response = request->response;
  request->response = NULL;
  pthread_mutex_unlock(&request->lock);
  if (response == NULL) return MHD_NO;
  enum MHD_Result result = MHD_queue_response(request->connection, request->status, response);
  MHD_destroy_response(response);
  return result;
}

static enum MHD_Result on_access(void *cls, struct MHD_Connection *connection, const char *url,
                                 const char *method, const char *version,
                                 const char *upload_data, size_t *upload_size, void **state) {
  (void)version;
  chttp_server *server = cls;
  chttp_request *request = *state;
  if (request == NULL) {
    request = calloc(1, sizeof *request);
    if (request == NULL) return MHD_NO;
    pthread_mutex_init(&request->lock, NULL);
    request->server = server;
    request->connection = connection;
    request->refs = 2;
    request->suspended = 1;
    *state = request;
    chttp_request_info info = {
        .method = method,
        .path = url,
        .authorization = header(connection, MHD_HTTP_HEADER_AUTHORIZATION),
        .origin = header(connection, "Origin"),
        .host = header(connection, MHD_HTTP_HEADER_HOST),
        .upgrade = header(connection, MHD_HTTP_HEADER_UPGRADE),
        .connection = header(connection, MHD_HTTP_HEADER_CONNECTION),
        .websocket_key = header(connection, "Sec-WebSocket-Key"),
        .websocket_version = header(connection, "Sec-WebSocket-Version"),
        .sec_fetch_site = header(connection, "Sec-Fetch-Site"),
        .websocket_protocol = header(connection, "Sec-WebSocket-Protocol"),
        .content_type = header(connection, MHD_HTTP_HEADER_CONTENT_TYPE),
        .content_length = header(connection, MHD_HTTP_HEADER_CONTENT_LENGTH),
        .transfer_encoding = header(connection, MHD_HTTP_HEADER_TRANSFER_ENCODING),
    };
    MHD_suspend_connection(connection);
    server->on_request(server->context, request, &info);
    return MHD_YES;
  }
  switch (request->body) {
    case BODY_UNWANTED:
      // Whatever of a body has arrived is dropped, and the answer goes out
      // (libmicrohttpd closes the connection after it when the body was not read whole).
      *upload_size = 0;
      return answer_or_wait(request);
    case BODY_STARTING:
      // The header call again, after labeld resumed the connection to read the body: the
      // chunks come next (or, for an empty body, the final call).
      *upload_size = 0;
      request->body = BODY_RECEIVING;
      return MHD_YES;
    case BODY_RECEIVING:
      if (*upload_size > 0) {
        size_t size = *upload_size;
        *upload_size = 0;
        pthread_mutex_lock(&request->lock);
        int answered = request->answered;
        pthread_mutex_unlock(&request->lock);
        if (answered) {
          // Refused mid-body: the rest is dropped, up to a bound.
          request->discarded += size;
          return request->discarded > DISCARD_LIMIT ? MHD_NO : MHD_YES;
        }
        server->on_body(server->context, request->tag, upload_data, size, 0);
        return MHD_YES;
      }
      request->body = BODY_ENDED;
      request->sink_open = 0;
      server->on_body(server->context, request->tag, NULL, 0, 1);
      return answer_or_wait(request);
    case BODY_ENDED:
      *upload_size = 0;
      return answer_or_wait(request);
  }
  return MHD_NO;
}

static void on_completed(void *cls, struct MHD_Connection *connection, void **state,
                         enum MHD_RequestTerminationCode code) {
  (void)connection;
  (void)code;
  chttp_server *server = cls;
  chttp_request *request = *state;
  if (request == NULL) return;
  *state = NULL;
  pthread_mutex_lock(&request->lock);
  request->gone = 1;
  int open = request->sink_open;
  request->sink_open = 0;
  pthread_mutex_unlock(&request->lock);
  // A body labeld was reading that will never end (the client left, went quiet, or sent
  // past the discard bound after an early answer): its sink lets go of what it holds.
  if (open) server->on_body(server->context, request->tag, NULL, 0, -1);
  release(request);
}

static void on_log(void *cls, const char *format, va_list ap) {
  chttp_server *server = cls;
  if (server->error && server->error_size > 0) {
    vsnprintf(server->error, server->error_size, format, ap);
    size_t n = strlen(server->error);
    while (n > 0 && (server->error[n - 1] == '\n' || server->error[n - 1] == '.')) {
      server->error[--n] = 0;
    }
  }
}

int chttp_retrieve_credentials(gnutls_session_t session, const gnutls_datum_t *names, int count,
                               const gnutls_pk_algorithm_t *algorithms, int algorithm_count,
                               gnutls_pcert_st **certificates, unsigned int *certificate_count,
                               gnutls_privkey_t *key);

static struct MHD_Daemon *start_daemon(unsigned flags, chttp_server *server, ...) {
  va_list ap;
  va_start(ap, server);
  struct MHD_Daemon *daemon = MHD_start_daemon_va(flags, 0, NULL, NULL, on_access, server, ap);
  va_end(ap);
  return daemon;
}

chttp_server *chttp_start(const chttp_options *options, chttp_request_fn on_request,
                          chttp_upgrade_fn on_upgrade, chttp_body_fn on_body, void *context,
                          char *error, size_t error_size) {
  chttp_server *server = calloc(1, sizeof *server);
  if (server == NULL) {
    snprintf(error, error_size, "out of memory");
    return NULL;
  }
  server->on_request = on_request;
  server->on_upgrade = on_upgrade;
  server->on_body = on_body;
  server->context = context;
  server->error = error;
  server->error_size = error_size;
  if (error_size > 0) error[0] = 0;
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
                   MHD_ALLOW_UPGRADE | MHD_USE_ERROR_LOG;
  if (options->tls) {
    // TLS 1.2 and 1.3 only (RFC 8996 deprecates 1.0 and 1.1).
    server->daemon = start_daemon(
        flags | MHD_USE_TLS, server, MHD_OPTION_EXTERNAL_LOGGER, on_log, server,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)options->listen_fd, MHD_OPTION_CONNECTION_LIMIT,
        options->connection_limit, MHD_OPTION_CONNECTION_MEMORY_LIMIT, options->memory_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, options->timeout_seconds, MHD_OPTION_NOTIFY_COMPLETED,
        on_completed, server, MHD_OPTION_HTTPS_CERT_CALLBACK, chttp_retrieve_credentials,
        MHD_OPTION_HTTPS_PRIORITIES, "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2",
        MHD_OPTION_END);
  } else {
    server->daemon = start_daemon(
        flags, server, MHD_OPTION_EXTERNAL_LOGGER, on_log, server, MHD_OPTION_LISTEN_SOCKET,
        (MHD_socket)options->listen_fd, MHD_OPTION_CONNECTION_LIMIT, options->connection_limit,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, options->memory_limit, MHD_OPTION_CONNECTION_TIMEOUT,
        options->timeout_seconds, MHD_OPTION_NOTIFY_COMPLETED, on_completed, server,
        MHD_OPTION_END);
  }
  if (server->daemon == NULL) {
    if (error_size > 0 && error[0] == 0) snprintf(error, error_size, "libmicrohttpd did not start");
    free(server);
    return NULL;
  }
  // From here on its messages are not wanted (a client's bad request is the client's).
  server->error = NULL;
  return server;
}

void chttp_stop(chttp_server *server) {
  if (server == NULL) return;
  MHD_stop_daemon(server->daemon);
  free(server);
}

// labeld's answer: kept for libmicrohttpd's thread, which is woken if it waits for it;
// labeld's hold on the request ends here.
static void finish(chttp_request *request, unsigned status, struct MHD_Response *response) {
  pthread_mutex_lock(&request->lock);
  if (request->answered || request->gone) {
    pthread_mutex_unlock(&request->lock);
    if (response) MHD_destroy_response(response);
    release(request);
    return;
  }
  request->status = status;
  request->response = response;
  request->answered = 1;
  int resume = request->suspended;
  request->suspended = 0;
  pthread_mutex_unlock(&request->lock);
  // Resumed outside the lock: libmicrohttpd takes its own locks in resume and calls
  // on_completed under them, which takes this one. A suspended connection is not
  // completed meanwhile (its thread does not touch it until it is resumed).
  if (resume) MHD_resume_connection(request->connection);
  release(request);
}

int chttp_read_body(chttp_request *request, uint64_t tag) {
  pthread_mutex_lock(&request->lock);
  if (request->answered || request->gone || !request->suspended ||
      request->body != BODY_UNWANTED) {
    pthread_mutex_unlock(&request->lock);
    return 0;
  }
  request->tag = tag;
  request->body = BODY_STARTING;
  request->sink_open = 1;
  request->suspended = 0;
  pthread_mutex_unlock(&request->lock);
  MHD_resume_connection(request->connection);
  return 1;
}

void chttp_respond(chttp_request *request, unsigned status, const char *headers,
                   const void *body, size_t size) {
  struct MHD_Response *response =
      MHD_create_response_from_buffer(size, (void *)body, MHD_RESPMEM_MUST_COPY);
  if (response != NULL && headers != NULL) {
    const char *line = headers;
    while (*line) {
      const char *end = strchr(line, '\n');
      size_t length = end ? (size_t)(end - line) : strlen(line);
      const char *colon = memchr(line, ':', length);
      if (colon != NULL) {
        char name[128], value[1024];
        size_t n = (size_t)(colon - line), v = length - n - 1;
        const char *from = colon + 1;
        while (v > 0 && *from == ' ') {
          from++;
          v--;
        }
        if (n < sizeof name && v < sizeof value) {
          memcpy(name, line, n);
          name[n] = 0;
          memcpy(value, from, v);
          value[v] = 0;
          MHD_add_response_header(response, name, value);
        }
      }
      if (end == NULL) break;
      line = end + 1;
    }
  }
  finish(request, status, response);
}

static void on_upgraded(void *cls, struct MHD_Connection *connection, void *state,
                        const char *early, size_t early_size, MHD_socket sock,
                        struct MHD_UpgradeResponseHandle *handle) {
  (void)state;
  (void)early;
  chttp_request *request = cls;
  // A WebSocket carries small messages both ways: each leaves at once. libmicrohttpd
  // leaves the connection's socket as the 101 left it (corked, or with Nagle's delay),
  // and under TLS writes each record it forwards in pieces, so without this every
  // answer waits for the client's delayed ACK (about 40 ms on Linux).
  connection_info_fn info = __atomic_load_n(&connection_info, __ATOMIC_ACQUIRE);
  const union MHD_ConnectionInfo *fd =
      info ? info(connection, MHD_CONNECTION_INFO_CONNECTION_FD) : NULL;
  if (fd != NULL) {
    int on = 1, off = 0;
    setsockopt(fd->connect_fd, IPPROTO_TCP, TCP_CORK, &off, sizeof off);
    setsockopt(fd->connect_fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  }
  request->server->on_upgrade(request->server->context, request->tag, sock,
                              (chttp_upgraded *)handle, early_size);
}

void chttp_accept_websocket(chttp_request *request, const char *accept, const char *protocol,
                            uint64_t tag) {
  request->tag = tag;
  struct MHD_Response *response = MHD_create_response_for_upgrade(on_upgraded, request);
  if (response != NULL) {
    MHD_add_response_header(response, MHD_HTTP_HEADER_UPGRADE, "websocket");
    MHD_add_response_header(response, "Sec-WebSocket-Accept", accept);
    if (protocol != NULL) MHD_add_response_header(response, "Sec-WebSocket-Protocol", protocol);
  }
  finish(request, MHD_HTTP_SWITCHING_PROTOCOLS, response);
}

void chttp_close_upgraded(chttp_upgraded *handle, int fd) {
  // Under TLS, libmicrohttpd's thread notices MHD_UPGRADE_ACTION_CLOSE only when it next
  // wakes (the client's next bytes): the end of labeld's side of the socketpair wakes it
  // now, so the close frame written before and the connection's end reach the client at
  // once. On a plain connection `fd` is the client's socket: shut, it ends the same way.
  // After the action: a wake before it would find nothing to do. Through a duplicate, so
  // the socket is still this one (not a number reused) should the library close its
  // descriptor first.
  int copy = dup(fd);
  upgrade_action_fn action = __atomic_load_n(&upgrade_action, __ATOMIC_ACQUIRE);
  if (action) action((struct MHD_UpgradeResponseHandle *)handle, MHD_UPGRADE_ACTION_CLOSE);
  if (copy >= 0) {
    shutdown(copy, SHUT_RDWR);
    close(copy);
  }
}
