// Counts swift_task_alloc calls by call site and size, in a process started with LD_PRELOAD=<this library>.
// SIGUSR2 writes the table to $TASK_ALLOC_OUT (default /tmp/task-alloc.txt): one line per call site, "count size
// address", after a "total N" line. run.sh beside this file drives it and names the call sites.
//
// A caller allocates each async callee's context with swift_task_alloc, and an async function allocates one more
// for every local whose size is known only at run time (the SDK's resilient types): the counts show both.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef void *(*task_alloc_function)(size_t);

enum { slots = 4096 };
static task_alloc_function real_task_alloc;
static void *sites[slots];
static size_t sizes[slots];
static unsigned long counts[slots];
static unsigned long total;

static void write_table(int signal_number) {
    (void)signal_number;
    const char *path = getenv("TASK_ALLOC_OUT");
    FILE *file = fopen(path ? path : "/tmp/task-alloc.txt", "w");
    if (!file) return;
    fprintf(file, "total %lu\n", total);
    for (int slot = 0; slot < slots; slot++) {
        if (counts[slot]) fprintf(file, "%lu %zu %p\n", counts[slot], sizes[slot], sites[slot]);
    }
    fclose(file);
}

__attribute__((constructor)) static void install(void) { signal(SIGUSR2, write_table); }

// Not thread-safe: the counts are approximate if two threads allocate at once (navhostd's calls run on one thread).
void *swift_task_alloc(size_t size) {
    if (!real_task_alloc) real_task_alloc = (task_alloc_function)dlsym(RTLD_NEXT, "swift_task_alloc");
    void *site = __builtin_return_address(0);
    unsigned start = (unsigned)(((uintptr_t)site >> 2) % slots);
    for (int probe = 0; probe < slots; probe++) {
        unsigned slot = (start + probe) % slots;
        if (sites[slot] == site || sites[slot] == NULL) {
            sites[slot] = site;
            sizes[slot] = size;
            counts[slot]++;
            break;
        }
    }
    total++;
    return real_task_alloc(size);
}
