#ifndef NAVHOST_BENCH_SHIM_H
#define NAVHOST_BENCH_SHIM_H
// json-c, to check replies as the floor's client does; epoll, and the CPU affinity system calls, which Glibc's Swift
// module leaves out (they need _GNU_SOURCE, which a module cannot turn on for headers another module owns).
#include <json-c/json.h>
#include <json-c/json_tokener.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

/// sched_getaffinity(2) of the calling thread: returns the mask's size in bytes, or -1.
static inline long navhost_bench_get_affinity(void *mask, unsigned long size) {
    return syscall(SYS_sched_getaffinity, 0, size, mask);
}

/// sched_setaffinity(2) of the calling thread: returns 0, or -1.
static inline long navhost_bench_set_affinity(const void *mask, unsigned long size) {
    return syscall(SYS_sched_setaffinity, 0, size, mask);
}
#endif
