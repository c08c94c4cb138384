// See main_queue.h. The two entry points are the ones swift-corelibs-foundation's run loop uses on Linux; they are
// exported by libdispatch for exactly this, though no public header declares them.
#include "main_queue.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);

void navhost_main_queue_run(void) {
    int wakeup = _dispatch_get_main_queue_handle_4CF();
    _dispatch_main_queue_callback_4CF(NULL);
    for (;;) {
        struct pollfd poller = {.fd = wakeup, .events = POLLIN, .revents = 0};
        if (poll(&poller, 1, -1) < 0) {
            if (errno == EINTR) continue;
            abort();
        }
        uint64_t count;
        (void)read(wakeup, &count, sizeof(count));
        _dispatch_main_queue_callback_4CF(NULL);
    }
}
