// See main_queue.h.
#include "main_queue.h"

// The two entry points swift-corelibs-foundation's run loop uses on Linux; exported by libdispatch for exactly this,
// though no public header declares them.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);

int navhost_main_queue_wakeup_descriptor(void) { return _dispatch_get_main_queue_handle_4CF(); }

void navhost_main_queue_drain(void) { _dispatch_main_queue_callback_4CF(0); }

// The Swift runtime's hook for `swift_task_getMainExecutor` (swift/Runtime/Concurrency.h): a global function pointer
// in libswift_Concurrency, called with the runtime's own implementation, in Swift's calling convention.
typedef __attribute__((swiftcall)) navhost_serial_executor (*navhost_get_main_executor_original)(void);
extern __attribute__((swiftcall)) navhost_serial_executor (*swift_task_getMainExecutor_hook)(
    navhost_get_main_executor_original original);

static navhost_serial_executor main_executor;

static __attribute__((swiftcall)) navhost_serial_executor get_main_executor(
    navhost_get_main_executor_original original) {
    (void)original;
    return main_executor;
}

void navhost_main_executor_replace(navhost_serial_executor executor) {
    main_executor = executor;
    __atomic_store_n(&swift_task_getMainExecutor_hook, get_main_executor, __ATOMIC_RELEASE);
}
