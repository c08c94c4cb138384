// Serves the main dispatch queue, and with it Swift's main actor, from the process's main thread.
//
// With an async `main`, Swift calls dispatch_main(): the main thread exits and the main queue is drained by whichever
// worker thread dispatch picks, a different one from time to time, with every signal blocked. navhostd's plugin fault
// guard must find the thread that runs the main actor and interrupt it (docs/robustness.md, "Plugin faults"), so the
// daemon keeps its main thread and drains the main queue there itself, the way a CoreFoundation run loop does: it
// waits on the queue's wake-up descriptor and lets dispatch run what is queued.
#ifndef NAVHOST_MAIN_QUEUE_H
#define NAVHOST_MAIN_QUEUE_H

/// Drains the main queue on the calling thread, which must be the main thread, whenever work arrives. Never returns.
void navhost_main_queue_run(void) __attribute__((noreturn));

#endif
