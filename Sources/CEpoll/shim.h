#ifndef CEPOLL_SHIM_H
#define CEPOLL_SHIM_H
// Linux's readiness calls, which Glibc's Swift module leaves out: LabelPOSIX's EventLoop
// is their one user.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif
