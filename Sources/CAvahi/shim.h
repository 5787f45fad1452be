#ifndef TRIPTO_CAVAHI_SHIM_H
#define TRIPTO_CAVAHI_SHIM_H

#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/address.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>

/* The constants Swift cannot see through Avahi's enums and macros, as plain values. */
static inline int tripto_avahi_if_unspec(void) { return AVAHI_IF_UNSPEC; }
static inline int tripto_avahi_proto_unspec(void) { return AVAHI_PROTO_UNSPEC; }
static inline int tripto_avahi_proto_inet(void) { return AVAHI_PROTO_INET; }
static inline int tripto_avahi_proto_inet6(void) { return AVAHI_PROTO_INET6; }

#endif
