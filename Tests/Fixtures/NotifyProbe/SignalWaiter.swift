import Dispatch
import Glibc

/// Runs handlers for signals on the main queue, and says when they are armed.
///
/// A `DispatchSource` for a signal is registered asynchronously after `resume()`; a signal that arrives in between
/// is lost (its disposition is `SIG_IGN`, as the source requires). So the probe notifies READY only from `armed`,
/// once every source is registered: a test that sends SIGHUP after READY never loses it.
@MainActor
enum SignalWaiter {
    private static var sources: [any DispatchSourceSignal] = []

    static func start(
        _ handlers: [Int32: @MainActor () -> Void],
        armed: @escaping @MainActor () -> Void
    ) {
        var waiting = handlers.count
        for (signalNumber, handler) in handlers {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
            source.setEventHandler { MainActor.assumeIsolated { handler() } }
            source.setRegistrationHandler {
                MainActor.assumeIsolated {
                    waiting -= 1
                    if waiting == 0 { armed() }
                }
            }
            source.resume()
            sources.append(source)
        }
    }
}
