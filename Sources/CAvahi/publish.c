// DNS-SD announcements through avahi-daemon (see shim.h): a threaded poll owns the client
// and one entry group per service; every call from another thread takes the poll's lock.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

struct cavahi_publisher;

typedef struct service {
  struct cavahi_publisher *owner;
  int id;
  char *name;
  char *type;
  uint16_t port;
  char **subtypes;
  AvahiStringList *txt;
  AvahiEntryGroup *group;
  int established;
  struct service *next;
} service;

struct cavahi_publisher {
  AvahiThreadedPoll *poll;
  AvahiClient *client;
  service *services;
  int next_id;
};

static void create_client(cavahi_publisher *p);
static void register_service(cavahi_publisher *p, service *s);

static void rename_service(service *s) {
  char *alternative = avahi_alternative_service_name(s->name);
  if (alternative) {
    free(s->name);
    s->name = strdup(alternative);
    avahi_free(alternative);
  }
}

static void group_changed(AvahiEntryGroup *group, AvahiEntryGroupState state, void *userdata) {
  service *s = userdata;
  if (s->group != group) return;
  switch (state) {
    case AVAHI_ENTRY_GROUP_ESTABLISHED:
      s->established = 1;
      break;
    case AVAHI_ENTRY_GROUP_COLLISION:
      // Someone on the network has this name: take Avahi's next one ("... #2") and
      // register again (Avahi's own example does the same).
      rename_service(s);
      s->established = 0;
      register_service(s->owner, s);
      break;
    default:
      break;
  }
}

static void register_all(cavahi_publisher *p) {
  for (service *s = p->services; s; s = s->next) {
    if (!s->established) register_service(p, s);
  }
}

// Adds `s` to its group (made now, or emptied and reused) and commits it; a name taken
// is replaced by Avahi's alternative, a few times at most.
static void register_service(cavahi_publisher *p, service *s) {
  if (!p->client || avahi_client_get_state(p->client) != AVAHI_CLIENT_S_RUNNING) return;
  for (int attempt = 0; attempt < 20; attempt++) {
    if (s->group) {
      avahi_entry_group_reset(s->group);
    } else {
      s->group = avahi_entry_group_new(p->client, group_changed, s);
      if (!s->group) return;
    }
    int rc = avahi_entry_group_add_service_strlst(s->group, AVAHI_IF_UNSPEC, AVAHI_PROTO_UNSPEC,
                                                  0, s->name, s->type, NULL, NULL, s->port,
                                                  s->txt);
    for (int i = 0; rc >= 0 && s->subtypes && s->subtypes[i]; i++) {
      rc = avahi_entry_group_add_service_subtype(s->group, AVAHI_IF_UNSPEC, AVAHI_PROTO_UNSPEC,
                                                 0, s->name, s->type, NULL, s->subtypes[i]);
    }
    if (rc >= 0) rc = avahi_entry_group_commit(s->group);
    if (rc >= 0) return;
    if (rc != AVAHI_ERR_COLLISION) {
      avahi_entry_group_free(s->group);
      s->group = NULL;
      return;
    }
    rename_service(s);
  }
}

static void client_changed(AvahiClient *client, AvahiClientState state, void *userdata) {
  cavahi_publisher *p = userdata;
  if (p->client == NULL) p->client = client;  // called from inside avahi_client_new
  switch (state) {
    case AVAHI_CLIENT_S_RUNNING:
      register_all(p);
      break;
    case AVAHI_CLIENT_S_COLLISION:
    case AVAHI_CLIENT_S_REGISTERING:
      // The host name changes: the groups are registered again once it runs.
      for (service *s = p->services; s; s = s->next) {
        if (s->group) avahi_entry_group_reset(s->group);
        s->established = 0;
      }
      break;
    case AVAHI_CLIENT_FAILURE:
      // avahi-daemon went away: everything is registered again when it is back.
      for (service *s = p->services; s; s = s->next) {
        s->group = NULL;  // freed with the client
        s->established = 0;
      }
      avahi_client_free(client);
      p->client = NULL;
      create_client(p);
      break;
    default:
      break;
  }
}

static void create_client(cavahi_publisher *p) {
  int error = 0;
  AvahiClient *client = avahi_client_new(avahi_threaded_poll_get(p->poll), AVAHI_CLIENT_NO_FAIL,
                                         client_changed, p, &error);
  if (client) p->client = client;
}

cavahi_publisher *cavahi_publisher_new(char *error, size_t error_len) {
  cavahi_publisher *p = calloc(1, sizeof *p);
  if (!p) {
    snprintf(error, error_len, "out of memory");
    return NULL;
  }
  p->next_id = 1;
  p->poll = avahi_threaded_poll_new();
  if (!p->poll) {
    snprintf(error, error_len, "Avahi cannot make its poll");
    free(p);
    return NULL;
  }
  avahi_threaded_poll_lock(p->poll);
  create_client(p);
  avahi_threaded_poll_unlock(p->poll);
  if (!p->client || avahi_threaded_poll_start(p->poll) < 0) {
    snprintf(error, error_len, "Avahi's client cannot start");
    if (p->client) avahi_client_free(p->client);
    avahi_threaded_poll_free(p->poll);
    free(p);
    return NULL;
  }
  return p;
}

int cavahi_publish(cavahi_publisher *p, const char *name, const char *type, uint16_t port,
                   const char *const *subtypes, const char *const *txt) {
  service *s = calloc(1, sizeof *s);
  if (!s) return -1;
  s->name = strdup(name);
  s->type = strdup(type);
  s->port = port;
  int n = 0;
  while (subtypes && subtypes[n]) n++;
  s->subtypes = calloc((size_t)n + 1, sizeof(char *));
  for (int i = 0; i < n && s->subtypes; i++) s->subtypes[i] = strdup(subtypes[i]);
  for (int i = 0; txt && txt[i]; i++) s->txt = avahi_string_list_add(s->txt, txt[i]);
  avahi_threaded_poll_lock(p->poll);
  s->owner = p;
  s->id = p->next_id++;
  s->next = p->services;
  p->services = s;
  register_service(p, s);
  int id = s->id;
  avahi_threaded_poll_unlock(p->poll);
  return id;
}

static void free_service(service *s) {
  if (s->group) avahi_entry_group_free(s->group);
  for (int i = 0; s->subtypes && s->subtypes[i]; i++) free(s->subtypes[i]);
  free(s->subtypes);
  avahi_string_list_free(s->txt);
  free(s->name);
  free(s->type);
  free(s);
}

void cavahi_withdraw(cavahi_publisher *p, int id) {
  avahi_threaded_poll_lock(p->poll);
  for (service **at = &p->services; *at; at = &(*at)->next) {
    if ((*at)->id == id) {
      service *s = *at;
      *at = s->next;
      free_service(s);
      break;
    }
  }
  avahi_threaded_poll_unlock(p->poll);
}

int cavahi_published_name(cavahi_publisher *p, int id, char *out, size_t out_len) {
  int state = -1;
  avahi_threaded_poll_lock(p->poll);
  for (service *s = p->services; s; s = s->next) {
    if (s->id == id) {
      snprintf(out, out_len, "%s", s->name);
      state = s->established ? 0 : 1;
    }
  }
  avahi_threaded_poll_unlock(p->poll);
  return state;
}

void cavahi_publisher_free(cavahi_publisher *p) {
  if (!p) return;
  avahi_threaded_poll_stop(p->poll);
  while (p->services) {
    service *s = p->services;
    p->services = s->next;
    free_service(s);
  }
  if (p->client) avahi_client_free(p->client);
  avahi_threaded_poll_free(p->poll);
  free(p);
}
