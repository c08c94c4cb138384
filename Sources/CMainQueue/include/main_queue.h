// Runs Swift's main actor, and the main dispatch queue, on the process's main thread, inside navhostd's event loop.
//
// With an async `main`, Swift calls dispatch_main(): the main thread exits and the main queue is drained by whichever
// worker thread dispatch picks, a different one from time to time, with every signal blocked. navhostd keeps its main
// thread instead: the thread runs the daemon's NIO event loop, and
// - the main actor's executor is that loop (through the Swift runtime's main-executor hook), so a hop to the main
//   actor from the loop is a queue append, not an eventfd write and an epoll round;
// - the main dispatch queue (DispatchQueue.main, which still has users) is drained when its wake-up descriptor fires,
//   the way a CoreFoundation run loop does.
// So the sockets and the main actor share one thread (a call wakes the daemon once, docs/architecture.md), and the
// plugin fault guard knows which thread runs plugin code (docs/robustness.md, "Plugin faults").
#ifndef NAVHOST_MAIN_QUEUE_H
#define NAVHOST_MAIN_QUEUE_H

/// The descriptor (an eventfd) that becomes readable when work is queued on the main dispatch queue. Owned by
/// libdispatch: read it to reset it, never close it.
int navhost_main_queue_wakeup_descriptor(void);

/// Runs what is queued on the main dispatch queue. Call it on the main thread only.
void navhost_main_queue_drain(void);

/// Swift's reference to a serial executor (`UnownedSerialExecutor`): the executor object and its implementation.
typedef struct {
    const void *identity;
    unsigned long implementation;
} navhost_serial_executor;

/// From now on, Swift's main actor runs on `executor` (navhostd's event loop on the main thread): the runtime's
/// main-executor hook answers with it, so jobs for the main actor are enqueued on it and run by it. Call it on the
/// main thread, before any job is enqueued for the main actor.
void navhost_main_executor_replace(navhost_serial_executor executor);

#endif
