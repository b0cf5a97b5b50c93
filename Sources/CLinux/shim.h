#ifndef CLINUX_SHIM_H
#define CLINUX_SHIM_H
// Linux and glibc calls that Glibc's Swift module leaves out (part of libc: nothing to
// link). LabelPOSIX is their one user: the EventLoop's readiness calls, malloc_trim
// for memory at rest (RestingMemory), and memfd_create for a child's input (ChildProcess).
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/eventfd.h>
#include <malloc.h>

// memfd_create (glibc 2.27) and pipe2, declared only under _GNU_SOURCE: an anonymous
// file, and a pipe made close-on-exec at once.
int memfd_create(const char *name, unsigned int flags);
int pipe2(int pipefd[2], int flags);
#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif
#endif
