#ifndef CLINUX_SHIM_H
#define CLINUX_SHIM_H
// Linux and glibc calls that Glibc's Swift module leaves out (part of libc: nothing to
// link). LabelPOSIX is their one user: the EventLoop's readiness calls, and malloc_trim
// for memory at rest (RestingMemory).
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <malloc.h>
#endif
