import Glibc
import IntegrationHarness
import Logging
import NIOCore
import NIOPosix
import NavHostJSON
import NavHostVarlink
import Synchronization

/// The interface the server tests call.
enum TestInterface {
    static let description = """
        # A service for testing the Varlink layer.
        interface org.navhost.test

        type Point (x: int, y: int)

        # Returns its input.
        method Echo(text: string, count: ?int) -> (text: string, count: ?int)
        # Echo, its reply's parameters written as JSON text by the handler.
        method EchoText(text: string, count: ?int) -> (text: string, count: ?int)
        # EchoText, started on the main actor: finished at once, or after a suspension when `count` is given; fails
        # with Failed when `text` is "fail".
        method EchoStarted(text: string, count: ?int) -> (text: string, count: ?int)

        # Adds a point to an offset.
        method Move(point: Point, by: (dx: int, dy: int), tags: ?[]string) -> (point: Point)

        # Waits until the test releases the named gate, then replies with the name.
        method Wait(gate: string) -> (gate: string)
        # Blocks its thread, the connection's event loop, until the test releases the named hold or 30 s pass; says
        # which.
        method Hold(gate: string) -> (released: bool)

        # Counts up to `to`, one reply per number.
        method Count(to: int) -> (number: int)
        # Count, each reply with continues prepared (serialized) before it is sent.
        method CountPrepared(to: int) -> (number: int)

        # Streams until cancelled; only with more.
        method Watch() -> (tick: int)
        # Watch, one tick a millisecond: for a channel that never pushes back, like the in-process one.
        method Pulse() -> (tick: int)
        # Hands its writer to the test, then sends the replies the test hands it, until it hands none; only with more.
        method Relay() -> (number: int)

        # Records a note; the test reads the notes.
        method Note(text: string) -> ()

        # Returns the caller's credentials.
        method WhoAmI() -> (pid: int, uid: int, gid: int)

        # Fails with an error of this interface.
        method Fail(kind: (declared, undeclared, denied)) -> ()

        # Declared but not implemented.
        method Missing() -> ()

        error Failed (reason: string)

        """
}

/// Gates that handlers wait on, released by the test: lets a test finish handlers in any order without sleeping.
final class Gates: Sendable {
    private let state = Mutex<[String: Gate]>([:])
    private let releasedHolds = Mutex<Set<String>>([])
    /// The name of each gate a handler began to wait on, in the order they began.
    let waiting: AsyncStream<String>
    private let waitingSink: AsyncStream<String>.Continuation

    init() {
        (waiting, waitingSink) = AsyncStream.makeStream(of: String.self)
    }

    private final class Gate: Sendable {
        let stream: AsyncStream<Void>
        let continuation: AsyncStream<Void>.Continuation
        init() { (stream, continuation) = AsyncStream.makeStream(of: Void.self) }
    }

    private func gate(_ name: String) -> Gate {
        state.withLock { gates in
            if let gate = gates[name] { return gate }
            let gate = Gate()
            gates[name] = gate
            return gate
        }
    }

    func wait(_ name: String) async {
        let gate = gate(name)
        waitingSink.yield(name)
        for await _ in gate.stream { return }
    }

    /// The names of the next `count` gates handlers began to wait on; fails after 10 s.
    func nextWaiting(_ count: Int) async throws -> [String] {
        let waiting = self.waiting
        return try await withTimeout(.seconds(10), "\(count) handlers to wait at their gates") {
            var names: [String] = []
            for await name in waiting {
                names.append(name)
                if names.count == count { break }
            }
            return names
        }
    }

    func release(_ name: String) {
        gate(name).continuation.yield()
    }

    /// Blocks the calling thread until ``releaseHold(_:)`` releases the hold called `name`, or `limit` passes. The
    /// limit outlasts the tests' reads: a hold that gave up first would let the replies it held back through.
    ///
    /// - Returns: Whether it was released.
    func hold(_ name: String, for limit: Duration = .seconds(30)) -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if releasedHolds.withLock({ $0.remove(name) != nil }) { return true }
            usleep(1_000)
        }
        return false
    }

    /// Releases the hold called `name`, now or when a handler takes it.
    func releaseHold(_ name: String) {
        releasedHolds.withLock { _ = $0.insert(name) }
    }
}

/// Notes the `Note` method recorded, and the events a test waits for.
final class Recorder: Sendable {
    let notes: AsyncStream<String>
    private let sink: AsyncStream<String>.Continuation
    let watchEnded: AsyncStream<String>
    fileprivate let watchEndedSink: AsyncStream<String>.Continuation

    init() {
        (notes, sink) = AsyncStream.makeStream(of: String.self)
        (watchEnded, watchEndedSink) = AsyncStream.makeStream(of: String.self)
    }

    func record(_ note: String) { sink.yield(note) }

    /// The next `count` notes; fails after 10 s.
    func nextNotes(_ count: Int) async throws -> [String] {
        let notes = self.notes
        return try await withTimeout(.seconds(10), "\(count) notes") {
            var taken: [String] = []
            for await note in notes {
                taken.append(note)
                if taken.count == count { break }
            }
            return taken
        }
    }
}

/// The test's side of the `Relay` method: the call's writer, for the test to send replies with on its own (as a
/// watched session does for its watchers), and the replies it hands the handler to send (``handOver(_:)``).
final class Relay: Sendable {
    /// The writer of each `Relay` call, as its handler starts.
    let writers: AsyncStream<VarlinkReplyWriter>
    fileprivate let writerSink: AsyncStream<VarlinkReplyWriter>.Continuation
    fileprivate let replies: AsyncStream<VarlinkPreparedReply?>
    private let replySink: AsyncStream<VarlinkPreparedReply?>.Continuation

    init() {
        (writers, writerSink) = AsyncStream.makeStream(of: VarlinkReplyWriter.self)
        (replies, replySink) = AsyncStream.makeStream(of: VarlinkPreparedReply?.self)
    }

    /// Has the handler send `reply` with its writer; `nil` ends the call.
    func handOver(_ reply: VarlinkPreparedReply?) { replySink.yield(reply) }
}

struct DeclaredFailure: Error, VarlinkErrorConvertible {
    var varlinkError: VarlinkError {
        VarlinkError(name: "org.navhost.test.Failed", parameters: ["reason": "declared"])
    }
}

struct SecretFailure: Error, CustomStringConvertible {
    var description: String { "secret internal detail /etc/shadow" }
}

/// The test service with all its handlers.
func makeTestService(gates: Gates, recorder: Recorder, relay: Relay = Relay()) throws -> VarlinkService {
    var test = try VarlinkInterfaceImplementation(description: TestInterface.description)
    test.handle("Echo") { request in request.parameters }
    test.handleSerialized("EchoText") { request in try VarlinkSerializedParameters(request.parameters) }
    test.handleStarting("EchoStarted") { request in
        if request.parameters["text"] == "fail" { throw DeclaredFailure() }
        let parameters = try VarlinkSerializedParameters(request.parameters)
        guard request.parameters["count"] != nil else { return .finished(parameters) }
        return .suspended {
            await Task.yield()
            return parameters
        }
    }
    test.handle("Move", parameters: MoveParameters.self) { parameters, _ in
        MoveReply(point: .init(x: parameters.point.x + parameters.by.dx, y: parameters.point.y + parameters.by.dy))
    }
    test.handle("Wait") { request in
        let gate = request.parameters["gate"]?.stringValue ?? ""
        await gates.wait(gate)
        return ["gate": .string(gate)]
    }
    test.handle("Hold") { request in
        ["released": .bool(gates.hold(request.parameters["gate"]?.stringValue ?? ""))]
    }
    test.handleStreaming("Count") { request, replies in
        let to = request.parameters["to"]?.intValue ?? 0
        guard to > 0 else { return ["number": 0] }
        for number in 1..<to { try await replies.send(["number": .int(number)]) }
        return ["number": .int(to)]
    }
    test.handleStreaming("CountPrepared", requiresMore: true) { request, replies in
        let to = request.parameters["to"]?.intValue ?? 0
        guard to > 0 else { return ["number": 0] }
        for number in 1..<to { try await replies.send(try VarlinkPreparedReply(parameters: ["number": .int(number)])) }
        return ["number": .int(to)]
    }
    test.handleStreaming("Watch", requiresMore: true) { _, replies in
        var tick: Int64 = 0
        do {
            while true {
                tick += 1
                try await replies.send(["tick": .int(tick)])
            }
        } catch {
            recorder.watchEndedSink.yield("\(type(of: error))")
            throw error
        }
    }
    test.handleStreaming("Pulse", requiresMore: true) { _, replies in
        var tick: Int64 = 0
        while true {
            tick += 1
            try await replies.send(["tick": .int(tick)])
            try await Task.sleep(for: .milliseconds(1))
        }
    }
    test.handleStreaming("Relay", requiresMore: true) { _, replies in
        relay.writerSink.yield(replies)
        for await reply in relay.replies {
            guard let reply else { break }
            try await replies.send(reply)
        }
        return ["number": 0]
    }
    test.handle("Note") { request in
        recorder.record(request.parameters["text"]?.stringValue ?? "")
        return [:]
    }
    test.handle("WhoAmI") { request in
        guard let peer = request.peer else { throw VarlinkError.permissionDenied() }
        return ["pid": .int(Int64(peer.pid)), "uid": .int(Int64(peer.uid)), "gid": .int(Int64(peer.gid))]
    }
    test.handle("Fail") { request in
        switch request.parameters["kind"]?.stringValue {
        case "declared": throw DeclaredFailure()
        case "denied": throw VarlinkError.permissionDenied()
        default: throw SecretFailure()
        }
    }
    var service = VarlinkService(vendor: "NavHost", product: "tests", version: "0", url: "https://navhost.example")
    service.add(test)
    return service
}

struct MoveParameters: Decodable {
    struct Point: Decodable { var x: Int, y: Int }
    struct Offset: Decodable { var dx: Int, dy: Int }
    var point: Point
    var by: Offset
    var tags: [String]?
}

struct MoveReply: Encodable {
    struct Point: Encodable { var x: Int, y: Int }
    var point: Point
}

/// A server on a fresh socket, running in the background of a test.
struct RunningServer {
    let server: VarlinkServer
    let path: String
    let gates: Gates
    let recorder: Recorder
    let relay: Relay

    /// Binds a test server on `eventLoopGroup`, runs `body` while it serves, then shuts it down and waits for it to
    /// stop.
    static func with<Result: Sendable>(
        configuration: VarlinkServerConfiguration = VarlinkServerConfiguration(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        _ body: @Sendable (RunningServer) async throws -> Result
    ) async throws -> Result {
        let gates = Gates()
        let recorder = Recorder()
        let relay = Relay()
        let path = TestPaths.socketPath()
        let logger = quietLogger()
        let server = try await VarlinkServer.bind(
            unixSocketPath: path,
            service: try makeTestService(gates: gates, recorder: recorder, relay: relay),
            configuration: configuration,
            logger: logger,
            eventLoopGroup: eventLoopGroup
        )
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            do {
                let running = RunningServer(server: server, path: path, gates: gates, recorder: recorder, relay: relay)
                let result = try await body(running)
                server.shutdownGracefully()
                group.addTask {
                    try await Task.sleep(for: .seconds(10))
                    throw TimedOut(what: "the server to stop")
                }
                try await group.next()
                group.cancelAll()
                return result
            } catch {
                group.cancelAll()
                throw error
            }
        }
    }
}

/// A logger that only reports what would break a test run.
func quietLogger() -> Logger {
    var logger = Logger(label: "varlink-test")
    logger.logLevel = .critical
    return logger
}
