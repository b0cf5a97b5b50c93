// DNS-SD browsing through Avahi's client API, one bounded call (see shim.h). Every Avahi
// object is created and freed here, in this one function: the Swift side never holds one.
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "shim.h"

typedef struct {
  cavahi_service *out;
  int max;
  int count;
  int pending;   // resolvers not finished
  int browsing;  // browsers that have not reported ALL_FOR_NOW
  int failed;
  AvahiClient *client;
} context;

static void resolved(AvahiServiceResolver *r, AvahiIfIndex interface, AvahiProtocol protocol,
                     AvahiResolverEvent event, const char *name, const char *type,
                     const char *domain, const char *host, const AvahiAddress *address,
                     uint16_t port, AvahiStringList *txt, AvahiLookupResultFlags flags,
                     void *userdata) {
  (void)interface; (void)protocol; (void)domain; (void)flags;
  context *c = userdata;
  if (event == AVAHI_RESOLVER_FOUND && c->count < c->max) {
    cavahi_service *s = &c->out[c->count];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name ? name : "");
    snprintf(s->type, sizeof s->type, "%s", type ? type : "");
    snprintf(s->host, sizeof s->host, "%s", host ? host : "");
    if (address) avahi_address_snprint(s->address, sizeof s->address, address);
    s->port = port;
    char *text = txt ? avahi_string_list_to_string(txt) : NULL;
    if (text) {
      snprintf(s->txt, sizeof s->txt, "%s", text);
      avahi_free(text);
    }
    // The same service on several interfaces or protocols is one entry.
    for (int i = 0; i < c->count; i++) {
      if (!strcmp(c->out[i].name, s->name) && !strcmp(c->out[i].type, s->type)) {
        c->count--;
        break;
      }
    }
    c->count++;
  }
  c->pending--;
  avahi_service_resolver_free(r);
}

static void browsed(AvahiServiceBrowser *b, AvahiIfIndex interface, AvahiProtocol protocol,
                    AvahiBrowserEvent event, const char *name, const char *type,
                    const char *domain, AvahiLookupResultFlags flags, void *userdata) {
  (void)b; (void)flags;
  context *c = userdata;
  switch (event) {
    case AVAHI_BROWSER_NEW:
      if (avahi_service_resolver_new(c->client, interface, protocol, name, type, domain,
                                     AVAHI_PROTO_UNSPEC, 0, resolved, c))
        c->pending++;
      break;
    case AVAHI_BROWSER_ALL_FOR_NOW:
      c->browsing--;
      break;
    case AVAHI_BROWSER_FAILURE:
      c->failed = 1;
      c->browsing--;
      break;
    default:
      break;
  }
}

static long long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int cavahi_browse(const char *const *types, int timeout_ms, cavahi_service *out, int max,
                  char *error, size_t error_len) {
  AvahiSimplePoll *poll = avahi_simple_poll_new();
  if (!poll) {
    snprintf(error, error_len, "cannot create a poll loop");
    return -1;
  }
  int err = 0;
  context c = {out, max, 0, 0, 0, 0, NULL};
  c.client = avahi_client_new(avahi_simple_poll_get(poll), 0, NULL, NULL, &err);
  if (!c.client) {
    snprintf(error, error_len, "%s", avahi_strerror(err));
    avahi_simple_poll_free(poll);
    return -1;
  }
  AvahiServiceBrowser *browsers[8] = {0};
  int n = 0;
  for (; types[n] && n < 8; n++) {
    browsers[n] = avahi_service_browser_new(c.client, AVAHI_IF_UNSPEC, AVAHI_PROTO_UNSPEC,
                                            types[n], NULL, 0, browsed, &c);
    if (browsers[n]) c.browsing++;
  }
  long long deadline = now_ms() + timeout_ms;
  // At least a quarter of the time, so that answers arriving after the cache are heard.
  long long earliest = now_ms() + timeout_ms / 4;
  for (;;) {
    long long left = deadline - now_ms();
    if (left <= 0) break;
    if (c.browsing <= 0 && c.pending <= 0 && now_ms() >= earliest) break;
    if (avahi_simple_poll_iterate(poll, (int)(left < 50 ? left : 50)) != 0) break;
  }
  for (int i = 0; i < n; i++)
    if (browsers[i]) avahi_service_browser_free(browsers[i]);
  avahi_client_free(c.client);  // frees the resolvers still open
  avahi_simple_poll_free(poll);
  return c.count;
}
