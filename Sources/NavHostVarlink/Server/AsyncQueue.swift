internal import NIOCore
internal import Synchronization

/// A first-in, first-out queue whose one consumer waits for the next element: how a connection's reader and its
/// calls report to the connection's loop, and how the loop lets the reader read on.
///
/// It does what the connection needed from `AsyncStream` (unbounded buffering, `finish()`, a waiting `next()` that
/// returns `nil` when the consumer's task is cancelled), for less: `AsyncStream`'s code is generic and not
/// specialized for the element, and looked up type metadata on every element, several times per call.
final class AsyncQueue<Element: Sendable>: Sendable {
    private struct State {
        var elements = CircularBuffer<Element>()
        var waiter: UnsafeContinuation<Element?, Never>?
        var finished = false
    }

    private enum Ready {
        case element(Element)
        case end
        case none
    }

    private let state = Mutex(State())

    init() {}

    /// Adds an element, or hands it to the waiting consumer.
    ///
    /// - Returns: `false` when the queue was finished: the element is dropped.
    @discardableResult
    func append(_ element: Element) -> Bool {
        let taken: (accepted: Bool, waiter: UnsafeContinuation<Element?, Never>?) = state.withLock { state in
            guard !state.finished else { return (false, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (true, waiter)
            }
            state.elements.append(element)
            return (true, nil)
        }
        taken.waiter?.resume(returning: element)
        return taken.accepted
    }

    /// Whether an element is waiting: ``next()`` would return it without suspending.
    var hasElements: Bool { state.withLock { !$0.elements.isEmpty } }

    /// Refuses later elements; the consumer still gets the ones already queued, then `nil`.
    func finish() {
        let waiter = state.withLock { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next element; `nil` once the queue is finished and empty, or when the consumer's task is cancelled.
    ///
    /// - Important: One consumer at a time.
    func next() async -> Element? {
        // Fast path: an element is already there, no suspension.
        switch state.withLock({ state -> Ready in
            if let element = state.elements.popFirst() { return .element(element) }
            return state.finished ? .end : .none
        }) {
        case .element(let element): return element
        case .end: return nil
        case .none: break
        }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Element?, Never>) in
                let ready: Ready = state.withLock { state in
                    if let element = state.elements.popFirst() { return .element(element) }
                    if state.finished || Task.isCancelled { return .end }
                    precondition(state.waiter == nil, "an AsyncQueue has one consumer")
                    state.waiter = continuation
                    return .none
                }
                switch ready {
                case .element(let element): continuation.resume(returning: element)
                case .end: continuation.resume(returning: nil)
                case .none: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
