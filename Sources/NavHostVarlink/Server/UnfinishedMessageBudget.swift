public import NIOCore
import Synchronization

/// The bytes of unfinished messages a server holds for all its connections together, against one limit.
///
/// A connection keeps the start of a message until its NUL terminator arrives, and
/// ``VarlinkServerConfiguration/maxMessageSize`` bounds each message, not all of them: a client that opens many
/// connections and leaves a large message unfinished on each could make the server hold the limit many times over
/// (a reader with 1,000 connections took navhostd from 29 MB to 875 MB that way, docs/robustness.md). Each
/// connection's frame handler tells the budget what it holds whenever that changes; when the total passes
/// ``limit``, the connections that hold the most are closed, largest first, until the rest fit, each with
/// ``VarlinkProtocolError/Code/unfinishedMessagesOverLimit``. The connections that hold little, as a client that
/// speaks the protocol well does between two reads, go on.
///
/// A connection that holds nothing costs the budget nothing: only a read that ends inside a message, or finishes one
/// that an earlier read began, reaches it.
package final class UnfinishedMessageBudget: Sendable {
    private let state: Mutex<State>

    fileprivate struct State {
        var limit: Int
        var total = 0
        var holders: [ObjectIdentifier: Holder] = [:]
        /// Connections closed by the budget that have not said yet that they are gone: what they read until then is
        /// not counted again.
        var evicted: Set<ObjectIdentifier> = []
    }

    fileprivate struct Holder {
        var bytes: Int
        let channel: any Channel
    }

    /// A connection the budget closes, and why.
    fileprivate struct Eviction {
        let holder: ObjectIdentifier
        let channel: any Channel
        let error: VarlinkProtocolError
    }

    /// Creates a budget of `limit` bytes.
    package init(limit: Int) {
        state = Mutex(State(limit: limit))
    }

    /// The most bytes of unfinished messages held at once; a new limit counts from the next change a connection
    /// reports.
    package var limit: Int {
        get { state.withLock { $0.limit } }
        set { state.withLock { $0.limit = newValue } }
    }

    /// The bytes held now, by the connections not closed by the budget.
    package var total: Int { state.withLock { $0.total } }

    /// Notes that the connection `holder`, on `channel`, now holds `bytes` of an unfinished message (0 once it holds
    /// none); when that takes the total past the limit, closes the connections that hold the most until the rest fit.
    ///
    /// Each connection closed gets a ``VarlinkProtocolError`` fired down its pipeline, before this returns when it is
    /// on the caller's event loop (the caller's own connection among them), else on its own loop: its handlers log and
    /// close it as for any protocol error, and its frame handler then calls ``release(_:)``.
    ///
    /// - Returns: The connections closed, the largest first.
    @discardableResult
    package func record(_ bytes: Int, heldBy holder: ObjectIdentifier, on channel: any Channel) -> [ObjectIdentifier] {
        let evictions = state.withLock { state -> [Eviction] in
            guard !state.evicted.contains(holder) else { return [] }
            state.total += bytes - (state.holders[holder]?.bytes ?? 0)
            state.holders[holder] = bytes > 0 ? Holder(bytes: bytes, channel: channel) : nil
            return state.evictLargest()
        }
        for eviction in evictions {
            let (channel, error) = (eviction.channel, eviction.error)
            // At once on this loop, so the bytes go with the connection before another read comes: deferred, every
            // connection the loop reads meanwhile could be closed in turn with its bytes still held.
            if channel.eventLoop.inEventLoop {
                channel.pipeline.fireErrorCaught(error)
            } else {
                channel.eventLoop.execute { channel.pipeline.fireErrorCaught(error) }
            }
        }
        return evictions.map(\.holder)
    }

    /// Forgets the connection `holder`: it has closed, or left the pipeline.
    package func release(_ holder: ObjectIdentifier) {
        state.withLock { state in
            state.evicted.remove(holder)
            if let held = state.holders.removeValue(forKey: holder) { state.total -= held.bytes }
        }
    }
}

// MARK: - Choosing whom to close

extension UnfinishedMessageBudget.State {
    /// Takes the largest holders out, with the error each is closed with, until the total is within the limit.
    fileprivate mutating func evictLargest() -> [UnfinishedMessageBudget.Eviction] {
        var evictions: [UnfinishedMessageBudget.Eviction] = []
        while total > limit, let (id, largest) = holders.max(by: { $0.value.bytes < $1.value.bytes }) {
            let error = VarlinkProtocolError(
                code: .unfinishedMessagesOverLimit,
                message: "the server's connections held \(total) bytes of unfinished messages, over its limit of "
                    + "\(limit); this one held \(largest.bytes), the most"
            )
            holders[id] = nil
            evicted.insert(id)
            total -= largest.bytes
            evictions.append(UnfinishedMessageBudget.Eviction(holder: id, channel: largest.channel, error: error))
        }
        return evictions
    }
}
