#ifndef CAVAHI_SHIM_H
#define CAVAHI_SHIM_H
// Avahi's client library (Debian: libavahi-client-dev), for DNS-SD: discovery of network
// printers (browse.c) and the announcement of labeld's own IPP printers (publish.c).
// labeld links none of it: lazy.c's stubs find each function in the library cavahi_bind()
// was given (dlopen, on first use), so a labeld that neither browses nor publishes never
// maps it.
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/address.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/simple-watch.h>
#include <avahi-common/strlst.h>
#include <stddef.h>
#include <stdint.h>

// Binds the stubs in lazy.c to libavahi-client (and, through it, libavahi-common).
void cavahi_bind(void *handle);

// One service found and resolved.
typedef struct {
  char name[128];
  char type[64];
  char host[256];
  char address[64];
  uint16_t port;
  char txt[1024];  // "key=value" strings, each in double quotes, as avahi prints them
} cavahi_service;

// Browses the service types in `types` (NULL-terminated) on every interface for at most
// `timeout_ms` (returning sooner once every browser has reported its cache and nothing is
// being resolved), resolving each service found; writes up to `max` of them to `out`.
// Returns how many were written, or -1 with `error` set (the daemon is not running, ...).
// One simple poll, client, browser and resolver set per call, all freed before it returns.
int cavahi_browse(const char *const *types, int timeout_ms, cavahi_service *out, int max,
                  char *error, size_t error_len);

// Announces services through avahi-daemon, on a thread of Avahi's own (a threaded poll),
// for as long as it lives: registered again when avahi-daemon (re)starts, renamed on a name
// collision (Avahi's alternative names). Every Avahi object is owned by the publisher;
// Swift holds only this handle. NULL with `error` set when the thread cannot start.
typedef struct cavahi_publisher cavahi_publisher;
cavahi_publisher *cavahi_publisher_new(char *error, size_t error_len);
// Adds a service (`type` such as "_ipps._tcp"; `subtypes` and `txt` NULL-terminated, the
// subtypes written whole, "_print._sub._ipps._tcp"; txt as "key=value"). Returns its id
// (> 0), or -1 when it cannot be kept.
int cavahi_publish(cavahi_publisher *publisher, const char *name, const char *type,
                   uint16_t port, const char *const *subtypes, const char *const *txt);
// Withdraws service `id` (nothing when there is none).
void cavahi_withdraw(cavahi_publisher *publisher, int id);
// The name service `id` is announced under now (renamed after a collision), copied into
// `out`; 0 when it is registered with avahi-daemon, 1 while it waits to be, -1 for none.
int cavahi_published_name(cavahi_publisher *publisher, int id, char *out, size_t out_len);
// Withdraws everything, stops the thread and frees all.
void cavahi_publisher_free(cavahi_publisher *publisher);

#endif
