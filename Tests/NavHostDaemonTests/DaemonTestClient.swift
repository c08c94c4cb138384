import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Synchronization

/// A Varlink client for `io.navhost.Navigation`, with the small conveniences the daemon tests need.
struct NavigationClient {
    let client: VarlinkClient

    static func connect(to daemon: DaemonProcess) async throws -> NavigationClient {
        NavigationClient(client: try await VarlinkClient.connect(unixSocketPath: daemon.socketPath))
    }

    /// Calls `io.navhost.Navigation.<method>`.
    @discardableResult
    func call(_ method: String, _ parameters: JSONObject = [:]) async throws -> JSONObject {
        try await client.call("io.navhost.Navigation.\(method)", parameters: parameters)
    }

    /// The stack's route IDs, root first.
    func routes(session: String = "main") async throws -> [String] {
        try await snapshot(session: session)["stack"]?.arrayValue?.compactMap { $0["route"]?.stringValue } ?? []
    }

    /// The whole snapshot.
    func snapshot(session: String = "main") async throws -> JSONValue {
        try await call("Stack", ["session": .string(session)])["snapshot"] ?? .null
    }

    /// The top screen's state.
    func topState(session: String = "main") async throws -> JSONValue {
        try await snapshot(session: session)["stack"]?.arrayValue?.last?["state"] ?? .null
    }

    /// Follows the session; updates are Watch's replies.
    func watch(session: String = "main", resumeFrom: Int64? = nil) -> VarlinkReplySequence {
        var parameters: JSONObject = ["session": .string(session)]
        if let resumeFrom { parameters["resumeFrom"] = .int(resumeFrom) }
        return client.callMore("io.navhost.Navigation.Watch", parameters: parameters)
    }

    func close() async throws { try await client.close() }
}

/// Reads a Watch stream in the background, so a test can wait for a reply with a time limit even when none comes.
final class WatchRecorder: Sendable {
    private final class Received: Sendable {
        let replies = Mutex<[JSONObject]>([])
        let ended = Mutex(false)
    }

    private let received = Received()
    private let consumed = Mutex(0)
    private let reader: Task<Void, Never>

    init(_ sequence: VarlinkReplySequence) {
        let received = self.received
        reader = Task {
            do {
                for try await reply in sequence { received.replies.withLock { $0.append(reply) } }
            } catch {}
            received.ended.withLock { $0 = true }
        }
    }

    deinit { reader.cancel() }

    /// Every reply received so far, taken or not.
    var replies: [JSONObject] { received.replies.withLock { $0 } }

    /// Every reply received so far.
    var all: [JSONObject] { received.replies.withLock { $0 } }

    /// Whether the call ended: its last reply came, or it failed.
    var ended: Bool { received.ended.withLock { $0 } }

    /// The next reply not yet taken that satisfies `condition` (earlier ones are skipped); fails after `limit`.
    @discardableResult
    func next(within limit: Duration = .seconds(30), where condition: (JSONObject) -> Bool = { _ in true })
        async throws -> JSONObject
    {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let (all, start) = (received.replies.withLock { $0 }, consumed.withLock { $0 })
            if let index = all.indices.dropFirst(start).first(where: { condition(all[$0]) }) {
                consumed.withLock { $0 = index + 1 }
                return all[index]
            }
            consumed.withLock { $0 = all.count }
            if received.ended.withLock({ $0 }) { throw TimedOut(what: "a Watch reply: the stream ended") }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TimedOut(what: "a Watch reply that matches")
    }
}

extension JSONObject {
    /// The `revision` of a reply, as an integer.
    var revision: Int64? { self["revision"]?.intValue }
}
