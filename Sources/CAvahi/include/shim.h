#ifndef CAVAHI_SHIM_H
#define CAVAHI_SHIM_H
// Avahi's client library (Debian: libavahi-client-dev), for DNS-SD discovery of network
// printers. labeld links none of it: lazy.c's stubs find each function in the library
// cavahi_bind() was given (dlopen, on the first `devices.list`), so a labeld that never
// browses never maps it.
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
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

#endif
