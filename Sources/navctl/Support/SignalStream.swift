import Dispatch
import Glibc

/// Signals as an async stream: each delivery of one of the signals given yields its number.
///
/// The signals' default actions are turned off (`SIG_IGN`) for the rest of the process, so that the program
/// decides what a Ctrl-C means; a dispatch source still sees them. Keep the `SignalStream` alive for as long as
/// its ``stream`` is read: its dispatch sources stop when it goes away.
final class SignalStream {
    /// The signal numbers, in the order they arrive.
    let stream: AsyncStream<Int32>

    private let sources: [any DispatchSourceSignal]

    init(_ signals: Int32...) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.stream = stream
        self.sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
