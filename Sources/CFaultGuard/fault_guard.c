// See fault_guard.h. Everything a signal handler touches here is async-signal-safe: fixed tables, atomics, and the
// system calls open/pwrite/ftruncate/fsync. backtrace() is called once at install time, so that its first call (which
// loads libgcc_s) never happens inside a handler.
#define _GNU_SOURCE
#include "fault_guard.h"

#include <dirent.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// MARK: - Tables

enum { MAX_LIBRARIES = 256, MAX_SEGMENTS = 8, LABEL_SIZE = 192, DETAIL_SIZE = 160, MAX_FRAMES = 128 };

struct library {
    char label[LABEL_SIZE];
    uintptr_t start[MAX_SEGMENTS];
    uintptr_t end[MAX_SEGMENTS];
    int segments;
    int used;  // set last, with release order, so a handler never reads a half-written entry
};

static struct library libraries[MAX_LIBRARIES];
static pthread_mutex_t libraries_lock = PTHREAD_MUTEX_INITIALIZER;

static int marker_fd = -1;
static int marker_written;  // the first fault or probe that names a plugin wins
static char last_label[LABEL_SIZE];

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT};
enum { FATAL_SIGNAL_COUNT = sizeof(fatal_signals) / sizeof(fatal_signals[0]) };
static struct sigaction previous_actions[FATAL_SIGNAL_COUNT];

static char probe_detail[DETAIL_SIZE];
static int probe_state;  // 0 idle, 1 asked, 2 answered with a plugin, 3 answered without one

static int probe_signal(void) { return SIGRTMIN + 5; }

// MARK: - Looking up frames

static const char *label_of_address(uintptr_t address) {
    for (int index = 0; index < MAX_LIBRARIES; index++) {
        struct library *library = &libraries[index];
        if (!__atomic_load_n(&library->used, __ATOMIC_ACQUIRE)) continue;
        for (int segment = 0; segment < library->segments; segment++) {
            if (address >= library->start[segment] && address < library->end[segment]) return library->label;
        }
    }
    return NULL;
}

/// The label of the innermost plugin frame on the calling thread's stack, or NULL.
static const char *label_on_stack(void) {
    void *frames[MAX_FRAMES];
    int count = backtrace(frames, MAX_FRAMES);
    for (int index = 0; index < count; index++) {
        const char *label = label_of_address((uintptr_t)frames[index]);
        if (label) return label;
    }
    return NULL;
}

// MARK: - Writing the marker

static size_t append(char *buffer, size_t used, size_t size, const char *text) {
    while (*text && used + 1 < size) buffer[used++] = *text++;
    buffer[used] = 0;
    return used;
}

static size_t append_number(char *buffer, size_t used, size_t size, long number) {
    char digits[24];
    int count = 0;
    if (number < 0) {
        used = append(buffer, used, size, "-");
        number = -number;
    }
    do {
        digits[count++] = (char)('0' + number % 10);
        number /= 10;
    } while (number > 0 && count < (int)sizeof(digits));
    while (count > 0 && used + 1 < size) buffer[used++] = digits[--count];
    buffer[used] = 0;
    return used;
}

/// Writes `label`, `cause` and `detail` as three lines, once per process.
static void write_marker(const char *label, const char *cause, const char *detail) {
    size_t used = 0;
    for (; label[used] && used + 1 < LABEL_SIZE; used++) last_label[used] = label[used];
    last_label[used] = 0;
    if (marker_fd < 0 || __atomic_exchange_n(&marker_written, 1, __ATOMIC_ACQ_REL)) return;
    char text[LABEL_SIZE + DETAIL_SIZE + 32];
    used = append(text, 0, sizeof(text), label);
    used = append(text, used, sizeof(text), "\n");
    used = append(text, used, sizeof(text), cause);
    used = append(text, used, sizeof(text), "\n");
    used = append(text, used, sizeof(text), detail);
    used = append(text, used, sizeof(text), "\n");
    if (ftruncate(marker_fd, 0) != 0) return;
    if (pwrite(marker_fd, text, used, 0) != (ssize_t)used) return;
    fsync(marker_fd);
}

// MARK: - Handlers

static void on_fatal_signal(int signal_number, siginfo_t *info, void *context) {
    (void)context;
    int saved_errno = errno;
    const char *label = label_on_stack();
    if (label) {
        char detail[DETAIL_SIZE];
        size_t used = append(detail, 0, sizeof(detail), "signal ");
        used = append_number(detail, used, sizeof(detail), signal_number);
        (void)used;
        write_marker(label, "crash", detail);
    }
    // Hand the signal on to whoever had it before (the Swift runtime's backtracer, or the default action).
    for (int index = 0; index < FATAL_SIGNAL_COUNT; index++) {
        if (fatal_signals[index] == signal_number) sigaction(signal_number, &previous_actions[index], NULL);
    }
    errno = saved_errno;
    // A fault re-executes the faulting instruction when the handler returns, and reaches the restored action then.
    // A signal that was sent (abort, kill) or a breakpoint that does not re-execute is raised again; it stays pending
    // until this handler returns.
    if (info->si_code <= 0 || signal_number == SIGTRAP || signal_number == SIGABRT) raise(signal_number);
}

static void on_probe(int signal_number, siginfo_t *info, void *context) {
    (void)signal_number;
    (void)info;
    (void)context;
    int saved_errno = errno;
    const char *label = label_on_stack();
    if (label) write_marker(label, "stall", probe_detail);
    __atomic_store_n(&probe_state, label ? 2 : 3, __ATOMIC_RELEASE);
    errno = saved_errno;
}

// MARK: - Public functions

int navhost_fault_guard_install(const char *marker_path) {
    marker_fd = open(marker_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (marker_fd < 0) return -1;
    void *warm_up[4];
    (void)backtrace(warm_up, 4);

    // A stack overflow leaves no stack for the handler: give this thread (the main thread, where plugins run) one.
    stack_t current;
    if (sigaltstack(NULL, &current) == 0 && (current.ss_flags & SS_DISABLE)) {
        size_t size = 256 * 1024;
        stack_t alternate = {.ss_sp = malloc(size), .ss_size = size, .ss_flags = 0};
        if (alternate.ss_sp) sigaltstack(&alternate, NULL);
    }

    struct sigaction action;
    memset(&action, 0, sizeof(action));
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    action.sa_sigaction = on_fatal_signal;
    for (int index = 0; index < FATAL_SIGNAL_COUNT; index++) {
        if (sigaction(fatal_signals[index], &action, &previous_actions[index]) != 0) return -1;
    }
    action.sa_sigaction = on_probe;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    if (sigaction(probe_signal(), &action, NULL) != 0) return -1;
    // A process inherits its signal mask: one started from a thread that blocks every signal (a dispatch worker's,
    // as in a test runner) would never see the probe.
    sigset_t ours;
    sigemptyset(&ours);
    sigaddset(&ours, probe_signal());
    for (int index = 0; index < FATAL_SIGNAL_COUNT; index++) sigaddset(&ours, fatal_signals[index]);
    return pthread_sigmask(SIG_UNBLOCK, &ours, NULL) == 0 ? 0 : -1;
}

struct search {
    const char *path;
    struct library *library;
    int found;
};

static int collect_segments(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct search *search = data;
    if (!info->dlpi_name || strcmp(info->dlpi_name, search->path) != 0) return 0;
    for (int index = 0; index < info->dlpi_phnum && search->library->segments < MAX_SEGMENTS; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD) continue;
        int segment = search->library->segments++;
        search->library->start[segment] = info->dlpi_addr + header->p_vaddr;
        search->library->end[segment] = info->dlpi_addr + header->p_vaddr + header->p_memsz;
    }
    search->found = 1;
    return 1;
}

int navhost_fault_guard_add_library(const char *label, const char *library_path) {
    pthread_mutex_lock(&libraries_lock);
    int result = -1;
    for (int index = 0; index < MAX_LIBRARIES; index++) {
        struct library *library = &libraries[index];
        if (__atomic_load_n(&library->used, __ATOMIC_ACQUIRE)) continue;
        memset(library, 0, sizeof(*library));
        strncpy(library->label, label, LABEL_SIZE - 1);
        struct search search = {.path = library_path, .library = library, .found = 0};
        dl_iterate_phdr(collect_segments, &search);
        if (search.found && library->segments > 0) {
            __atomic_store_n(&library->used, 1, __ATOMIC_RELEASE);
            result = 0;
        }
        break;
    }
    pthread_mutex_unlock(&libraries_lock);
    return result;
}

int navhost_fault_guard_current_thread(void) { return (int)syscall(SYS_gettid); }

/// Asks the thread `tid` to look at its own stack; 1 when it named a plugin, 0 when not, -1 when it did not answer.
static int probe_thread(int tid, int timeout_ms) {
    __atomic_store_n(&probe_state, 1, __ATOMIC_RELEASE);
    if (syscall(SYS_tgkill, getpid(), tid, probe_signal()) != 0) return -1;
    struct timespec pause = {.tv_sec = 0, .tv_nsec = 1000 * 1000};
    for (int waited = 0; waited < timeout_ms; waited++) {
        int state = __atomic_load_n(&probe_state, __ATOMIC_ACQUIRE);
        if (state == 2) return 1;
        if (state == 3) return 0;
        nanosleep(&pause, NULL);
    }
    return -1;
}

int navhost_fault_guard_probe(int preferred_tid, const char *detail, int timeout_ms) {
    strncpy(probe_detail, detail, DETAIL_SIZE - 1);
    probe_detail[DETAIL_SIZE - 1] = 0;
    last_label[0] = 0;
    if (preferred_tid > 0 && probe_thread(preferred_tid, timeout_ms) == 1) return 1;
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks) return 0;
    int self = navhost_fault_guard_current_thread();
    int named = 0;
    struct dirent *entry;
    while (!named && (entry = readdir(tasks)) != NULL) {
        int tid = atoi(entry->d_name);
        if (tid <= 0 || tid == self || tid == preferred_tid) continue;
        named = probe_thread(tid, timeout_ms) == 1;
    }
    closedir(tasks);
    return named;
}

const char *navhost_fault_guard_last_label(void) { return last_label; }
