// The daemon's record of a plugin that took it down: a trap or crash in a plugin's code, or a plugin that held the
// main thread past the stall limit. Written from a signal handler, so it is C: nothing in it allocates or locks.
//
// The daemon installs the guard once, then tells it the address range of each plugin library it loads. When a fatal
// signal arrives, or the stall detector probes the main thread, the handler walks the faulting thread's stack; the
// first frame inside a plugin names the plugin, and the handler writes that plugin's label and the cause to the
// marker file (and fsyncs it) before the signal takes its usual course. The next start reads the marker and
// quarantines the plugin (docs/robustness.md, "Plugin faults").
#ifndef NAVHOST_FAULT_GUARD_H
#define NAVHOST_FAULT_GUARD_H

/// Installs the handlers for SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE and SIGABRT, and for the stall probe
/// (SIGRTMIN+5, a real-time signal nothing else in the daemon uses), with an alternate signal stack for the calling
/// thread. Handlers installed before (the Swift runtime's backtracer) still run after the marker is written. Opens
/// (creates) `marker_path` now, so writing it later needs no path look-up. Returns 0, or -1 with errno set.
int navhost_fault_guard_install(const char *marker_path);

/// Remembers that the shared object loaded from `library_path` belongs to `label` (the plugin's name and checksum, as
/// the marker should say them). Call it after dlopen. Returns 0; -1 when the library is not loaded or the table of
/// 256 libraries is full. An entry is never removed: an unloaded plugin's code stays mapped, and may still run.
int navhost_fault_guard_add_library(const char *label, const char *library_path);

/// The calling thread's ID (gettid), for ``navhost_fault_guard_probe``.
int navhost_fault_guard_current_thread(void);

/// Asks threads to look at their own stacks; the first that finds a plugin's frame writes the marker with the cause
/// "stall" and `detail`. The thread `preferred_tid` (the one last seen serving the main queue) is asked first, then
/// every other thread of the process, each given up to `timeout_ms` to answer. The main actor's jobs run on whichever
/// thread is draining the main queue at the time (dispatch_main gives the main queue no thread of its own), so the
/// culprit is found by its stack, not by its thread. Returns 1 when a plugin was named, 0 when none was.
int navhost_fault_guard_probe(int preferred_tid, const char *detail, int timeout_ms);

/// The label the last probe or fault named, or an empty string (valid until the next probe).
const char *navhost_fault_guard_last_label(void);

#endif
