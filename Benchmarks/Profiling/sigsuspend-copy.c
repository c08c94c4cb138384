/* Preloaded into navhostd under valgrind 3.19 (Debian 12) only: that valgrind writes into the signal mask passed to
 * sigsuspend(2), and libdispatch's main-queue thread passes a mask in read-only memory, which crashes valgrind.
 * This sigsuspend hands the kernel a writable copy instead. */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, _NSIG / 8);
}
