import Foundation
import IntegrationHarness
import NIOPosix
import NavHostJSON
import NavHostVarlink
import Synchronization
import Testing

@Suite("A Varlink server over a real socket")
struct ServerTests {
    @Test("A message split across many writes is read as one call")
    func splitMessage() async throws {
        try await RunningServer.with { server in
            let connection = try await RawVarlinkConnection.connect(to: server.path)
            for piece in [#"{"meth"#, #"od":"org.navhost.test.Echo","#, #""parameters":{"text":"#, #""hi"}}"#, "\0"] {
                try await connection.write(piece)
            }
            let replies = try await connection.readReplies(1)
            #expect(replies == [VarlinkReply(parameters: ["text": "hi"])])
        }
    }

    @Test("A handler that writes its parameters as JSON text is answered with the bytes of the same reply as an object")
    func serializedParameters() async throws {
        try await RunningServer.with { server in
            let connection = try await RawVarlinkConnection.connect(to: server.path)
            for method in ["Echo", "EchoText"] {
                try await connection.write(
                    #"{"method":"org.navhost.test.\#(method)","parameters":{"text":"a \"b\"\n","count":2}}"# + "\0"
                )
            }
            let messages = try await connection.readMessages(2)
            #expect(messages[1] == messages[0])
            #expect(messages[0] == #"{"parameters":{"text":"a \"b\"\n","count":2}}"#)
        }
    }

    @Test("A handler started on the main actor answers as others do, whether it finished at once or suspended")
    func startedHandler() async throws {
        try await RunningServer.with { server in
            let connection = try await RawVarlinkConnection.connect(to: server.path)
            let calls = [
                #"{"method":"org.navhost.test.Echo","parameters":{"text":"a","count":2}}"#,
                #"{"method":"org.navhost.test.EchoStarted","parameters":{"text":"a","count":2}}"#,
                #"{"method":"org.navhost.test.EchoStarted","parameters":{"text":"a"}}"#,
                #"{"method":"org.navhost.test.EchoStarted","parameters":{"text":"fail"}}"#,
                #"{"method":"org.navhost.test.EchoStarted","parameters":{"text":7}}"#,
                #"{"method":"org.navhost.test.EchoStarted","parameters":{"text":"m"},"more":true}"#,
            ]
            try await connection.write(calls.map { $0 + "\0" }.joined())
            let messages = try await connection.readMessages(calls.count)
            #expect(messages[1] == messages[0])
            #expect(messages[2] == #"{"parameters":{"text":"a"}}"#)
            #expect(messages[3] == #"{"error":"org.navhost.test.Failed","parameters":{"reason":"declared"}}"#)
            #expect(messages[4].contains(#""error":"org.varlink.service.InvalidParameter""#))
            #expect(messages[5] == #"{"parameters":{"text":"m"}}"#)
        }
    }

    @Test("Many messages in one write are all answered, in order")
    func manyMessagesInOneWrite() async throws {
        try await RunningServer.with { server in
            let connection = try await RawVarlinkConnection.connect(to: server.path)
            let batch = (1...50).map { #"{"method":"org.navhost.test.Echo","parameters":{"text":"m\#($0)"}}"# + "\0" }
            try await connection.write(batch.joined())
            let replies = try await connection.readReplies(50)
            #expect(replies.map { $0.parameters["text"] } == (1...50).map { .string("m\($0)") })
        }
    }

    @Test("Pipelined calls whose handlers finish in reverse order are answered in call order")
    func pipelinedOutOfOrder() async throws {
        var configuration = VarlinkServerConfiguration()
        configuration.maxConcurrentCallsPerConnection = 8
        try await RunningServer.with(configuration: configuration) { server in
            let connection = try await RawVarlinkConnection.connect(to: server.path)
            for gate in ["a", "b", "c"] {
                try await connection.send(
                    VarlinkCall(method: "org.navhost.test.Wait", parameters: ["gate": .string(gate)])
                )
            }
            try await connection.send(VarlinkCall(method: "org.navhost.test.Note", parameters: ["text": "after"]))
            // The note handler can only run once all four handlers run concurrently.
            var notes = server.recorder.notes.makeAsyncIterator()
            #expect(await notes.next() == "after")
            for gate in ["c", "b", "a"] { server.gates.release(gate) }
            let replies = try await connection.readReplies(4)
            #expect(replies.map { $0.parameters["gate"] } == ["a", "b", "c", nil])
        }
    }

    @Test("With the default of one handler at a time, pipelined calls take effect in the order sent")
    func pipelinedSequential() async throws {
        try await RunningServer.with { server in
            let connection = try await RawVarlinkConnection.connect(to: server.path)
            for index in 1...5 {
                try await connection.send(
                    VarlinkCall(method: "org.navhost.test.Note", parameters: ["text": .string("\(index)")])
                )
            }
            #expect(try await connection.readReplies(5).count == 5)
            var notes = server.recorder.notes.makeAsyncIterator()
            var seen: [String] = []
            for _ in 1...5 { seen.append(await notes.next() ?? "") }
            #expect(seen == ["1", "2", "3", "4", "5"])
        }
    }

    @Test("A oneway call runs but gets no reply; the next call's reply comes next")
    func oneway() async throws {
        try await RunningServer.with { server in
            let connection = try await RawVarlinkConnection.connect(to: server.path)
            try await connection.send(
                VarlinkCall(method: "org.navhost.test.Note", parameters: ["text": "quiet"], oneway: true)
            )
            try await connection.send(VarlinkCall(method: "org.navhost.test.Nope", oneway: true))
            try await connection.send(VarlinkCall(method: "org.navhost.test.Echo", parameters: ["text": "next"]))
            #expect(try await connection.readReplies(1) == [VarlinkReply(parameters: ["text": "next"])])
            var notes = server.recorder.notes.makeAsyncIterator()
            #expect(await notes.next() == "quiet")
        }
    }

    @Test("A more call streams replies with continues and ends with one without")
    func moreStreams() async throws {
        try await RunningServer.with { server in
            let connection = try await RawVarlinkConnection.connect(to: server.path)
            try await connection.send(VarlinkCall(method: "org.navhost.test.Count", parameters: ["to": 3], more: true))
            try await connection.send(VarlinkCall(method: "org.navhost.test.Echo", parameters: ["text": "after"]))
            let messages = try await connection.readMessages(4)
            #expect(
                messages == [
                    #"{"parameters":{"number":1},"continues":true}"#,
                    #"{"parameters":{"number":2},"continues":true}"#,
                    #"{"parameters":{"number":3}}"#,
                    #"{"parameters":{"text":"after"}}"#,
                ]
            )
        }
    }

    @Test("A prepared reply goes out as it was serialized, with continues, in its place in the stream")
    func preparedRepliesStream() async throws {
        try await RunningServer.with { server in
            let connection = try await RawVarlinkConnection.connect(to: server.path)
            try await connection.send(
                VarlinkCall(method: "org.navhost.test.CountPrepared", parameters: ["to": 3], more: true)
            )
            try await connection.send(VarlinkCall(method: "org.navhost.test.Echo", parameters: ["text": "after"]))
            #expect(
                try await connection.readMessages(4) == [
                    #"{"parameters":{"number":1},"continues":true}"#,
                    #"{"parameters":{"number":2},"continues":true}"#,
                    #"{"parameters":{"number":3}}"#,
                    #"{"parameters":{"text":"after"}}"#,
                ]
            )
        }
    }

    @Test("A reply sent at once on the connection's loop goes straight out; from another thread the handler sends it")
    func immediateReplyAndItsFallback() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        try await RunningServer.with(eventLoopGroup: loop) { server in
            let connection = try await RawVarlinkConnection.connect(to: server.path)
            try await connection.send(VarlinkCall(method: "org.navhost.test.Relay", more: true))
            var writers = server.relay.writers.makeAsyncIterator()
            let writer = try #require(await writers.next())
            // On the connection's loop, while the handler waits for the next reply it is to send, as a watched session
            // writes to its watchers: the reply goes to the channel there and then.
            let first = try VarlinkPreparedReply(parameters: ["number": 1])
            #expect(try await loop.submit { writer.sendImmediately(first) }.get(), "written on the loop")
            #expect(try await connection.readMessages(1) == [#"{"parameters":{"number":1},"continues":true}"#])
            // From a thread of the concurrency pool: refused, nothing written, and the handler sends it itself.
            let second = try VarlinkPreparedReply(parameters: ["number": 2])
            #expect(!writer.sendImmediately(second), "refused off the loop")
            server.relay.handOver(second)
            server.relay.handOver(nil)
            #expect(
                try await connection.readMessages(2) == [
                    #"{"parameters":{"number":2},"continues":true}"#,
                    #"{"parameters":{"number":0}}"#,
                ]
            )
        }
    }

    @Test("A writer made with a parameters sink receives a prepared reply's parameters")
    func preparedReplyThroughParametersSink() async throws {
        let received = ReceivedParameters()
        let writer = VarlinkReplyWriter(call: VarlinkCall(method: "org.navhost.test.CountPrepared", more: true)) {
            received.append($0)
        }
        try await writer.send(try VarlinkPreparedReply(parameters: ["number": 7]))
        #expect(received.all == [["number": 7]])
    }

    @Test("A streaming method called without more answers once, or with ExpectedMore when it sends")
    func streamingWithoutMore() async throws {
        try await RunningServer.with { server in
            let client = try await VarlinkClient.connect(unixSocketPath: server.path)
            #expect(try await client.call("org.navhost.test.Count", parameters: ["to": 1]) == ["number": 1])
            await #expect(throws: VarlinkError.expectedMore()) {
                try await client.call("org.navhost.test.Count", parameters: ["to": 2])
            }
            await #expect(throws: VarlinkError.expectedMore()) {
                try await client.call("org.navhost.test.Watch")
            }
            try await client.close()
        }
    }

    @Test("The client streams a more call and pipelines calls from many tasks")
    func clientStreamsAndPipelines() async throws {
        try await RunningServer.with { server in
            let client = try await VarlinkClient.connect(unixSocketPath: server.path)
            var numbers: [Int64] = []
            for try await reply in client.callMore("org.navhost.test.Count", parameters: ["to": 5]) {
                numbers.append(reply["number"]?.intValue ?? -1)
            }
            #expect(numbers == [1, 2, 3, 4, 5])
            let texts = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let reply = try await client.call(
                            "org.navhost.test.Echo",
                            parameters: ["text": .string("t\(index)")]
                        )
                        return reply["text"]?.stringValue ?? ""
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(texts) == Set((0..<20).map { "t\($0)" }))
            try await client.oneway("org.navhost.test.Note", parameters: ["text": "oneway"])
            var notes = server.recorder.notes.makeAsyncIterator()
            #expect(await notes.next() == "oneway")
            try await client.close()
        }
    }

    @Test("Codable handlers decode parameters and encode their output")
    func codableHandler() async throws {
        try await RunningServer.with { server in
            let client = try await VarlinkClient.connect(unixSocketPath: server.path)
            let reply = try await client.call(
                "org.navhost.test.Move",
                parameters: ["point": ["x": 1, "y": 2], "by": ["dx": 10, "dy": 20]]
            )
            #expect(reply == ["point": ["x": 11, "y": 22]])
            try await client.close()
        }
    }

    @Test("Every standard error is answered with its name and parameters")
    func standardErrors() async throws {
        try await RunningServer.with { server in
            let client = try await VarlinkClient.connect(unixSocketPath: server.path)
            let cases: [(String, JSONObject, VarlinkError)] = [
                ("org.navhost.nothing.Echo", [:], .interfaceNotFound("org.navhost.nothing")),
                ("NoDotAtAll", [:], .interfaceNotFound("NoDotAtAll")),
                ("org.navhost.test.Nope", [:], .methodNotFound("org.navhost.test.Nope")),
                ("org.navhost.test.Missing", [:], .methodNotImplemented("org.navhost.test.Missing")),
                ("org.navhost.test.Echo", [:], .invalidParameter("text")),
                ("org.navhost.test.Echo", ["text": 5], .invalidParameter("text")),
                ("org.navhost.test.Echo", ["text": "x", "extra": 1], .invalidParameter("extra")),
                ("org.navhost.test.Move", ["point": ["x": 1, "y": 2], "by": ["dx": 1]], .invalidParameter("by.dy")),
                (
                    "org.navhost.test.Move",
                    ["point": ["x": 1, "y": 2], "by": ["dx": 1, "dy": 2], "tags": ["a", 3]],
                    .invalidParameter("tags[1]")
                ),
                ("org.navhost.test.Fail", ["kind": "elsewhere"], .invalidParameter("kind")),
                ("org.navhost.test.Fail", ["kind": "denied"], .permissionDenied()),
                ("org.navhost.test.Watch", [:], .expectedMore()),
                (
                    "org.varlink.service.GetInterfaceDescription", ["interface": "org.nowhere"],
                    .interfaceNotFound("org.nowhere")
                ),
                (
                    "org.navhost.test.Fail", ["kind": "declared"],
                    VarlinkError(name: "org.navhost.test.Failed", parameters: ["reason": "declared"])
                ),
                (
                    "org.navhost.test.Fail", ["kind": "undeclared"],
                    VarlinkError(name: "io.navhost.varlink.InternalError")
                ),
            ]
            for (method, parameters, expected) in cases {
                await #expect(throws: expected, "\(method) \(JSONValue.object(parameters))") {
                    try await client.call(method, parameters: parameters)
                }
            }
            try await client.close()
        }
    }

    @Test("An upgrade call is refused with an error and the connection stays usable")
    func upgradeRefused() async throws {
        try await RunningServer.with { server in
            let connection = try await RawVarlinkConnection.connect(to: server.path)
            try await connection.send(
                VarlinkCall(method: "org.navhost.test.Echo", parameters: ["text": "x"], upgrade: true)
            )
            try await connection.send(VarlinkCall(method: "org.navhost.test.Echo", parameters: ["text": "y"]))
            let replies = try await connection.readReplies(2)
            #expect(
                replies == [
                    VarlinkReply(error: .methodNotImplemented("org.navhost.test.Echo")),
                    VarlinkReply(parameters: ["text": "y"]),
                ]
            )
        }
    }

    @Test("GetInfo and GetInterfaceDescription describe the service, the description verbatim")
    func introspection() async throws {
        try await RunningServer.with { server in
            let client = try await VarlinkClient.connect(unixSocketPath: server.path)
            let info = try await client.call("org.varlink.service.GetInfo")
            #expect(info["interfaces"] == ["org.varlink.service", "org.navhost.test"])
            #expect(info["vendor"] == "NavHost")
            let description = try await client.call(
                "org.varlink.service.GetInterfaceDescription",
                parameters: ["interface": "org.navhost.test"]
            )
            #expect(description["description"]?.stringValue == TestInterface.description)
            try await client.close()
        }
    }

    @Test("A handler sees the peer's credentials from SO_PEERCRED")
    func peerCredentials() async throws {
        try await RunningServer.with { server in
            let client = try await VarlinkClient.connect(unixSocketPath: server.path)
            let reply = try await client.call("org.navhost.test.WhoAmI")
            #expect(
                reply == ["pid": .int(Int64(getpid())), "uid": .int(Int64(getuid())), "gid": .int(Int64(getgid()))]
            )
            try await client.close()
        }
    }

    @Test("A client that half-closes after writing its calls still gets every reply")
    func halfClosedClient() async throws {
        try await RunningServer.with { server in
            let connection = try await RawVarlinkConnection.connect(to: server.path)
            try await connection.send(VarlinkCall(method: "org.navhost.test.Echo", parameters: ["text": "1"]))
            try await connection.send(VarlinkCall(method: "org.navhost.test.Count", parameters: ["to": 2], more: true))
            try await connection.halfClose()
            let messages = try await connection.readUntilClosed()
            #expect(messages.count == 3)
        }
    }

    @Test("An oversize message closes its connection cleanly while another client is still served")
    func oversizeMessage() async throws {
        var configuration = VarlinkServerConfiguration()
        configuration.maxMessageSize = 1024
        try await RunningServer.with(configuration: configuration) { server in
            let other = try await VarlinkClient.connect(unixSocketPath: server.path)
            let offender = try await RawVarlinkConnection.connect(to: server.path)
            try await offender.send(VarlinkCall(method: "org.navhost.test.Echo", parameters: ["text": "ok"]))
            try await offender.write(
                #"{"method":"org.navhost.test.Echo","parameters":{"text":""# + String(repeating: "x", count: 2000)
            )
            let messages = try await offender.readUntilClosed()
            #expect(messages.count <= 1)
            #expect(
                try await other.call("org.navhost.test.Echo", parameters: ["text": "still here"]) == [
                    "text": "still here"
                ]
            )
            try await other.close()
        }
    }

    @Test(
        "A malformed message closes the connection",
        arguments: [
            "not json",
            "[1,2,3]",
            #"{"parameters":{}}"#,
            #"{"method":5}"#,
            #"{"method":"org.navhost.test.Echo","more":"yes"}"#,
            #"{"method":"org.navhost.test.Echo","parameters":[1]}"#,
            #"{"method":"org.navhost.test.Echo","more":true,"oneway":true}"#,
            #"{"method":"org.navhost.test.Echo","colour":"red"}"#,
            #"{"method":"org.navhost.test.Echo","parameters":{"text":"\u00"}}"#,
            String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
        ]
    )
    func malformedMessage(message: String) async throws {
        try await RunningServer.with { server in
            let connection = try await RawVarlinkConnection.connect(to: server.path)
            try await connection.write(message + "\0")
            #expect(try await connection.readUntilClosed().isEmpty)
        }
    }

    @Test("A vendor extension member is ignored")
    func vendorExtension() async throws {
        try await RunningServer.with { server in
            let connection = try await RawVarlinkConnection.connect(to: server.path)
            try await connection.write(
                #"{"method":"org.navhost.test.Echo","parameters":{"text":"v"},"org.example":{"a":1}}"# + "\0"
            )
            #expect(try await connection.readReplies(1) == [VarlinkReply(parameters: ["text": "v"])])
        }
    }

    @Test("A client that closes in the middle of a message does not disturb the server")
    func clientClosesMidMessage() async throws {
        try await RunningServer.with { server in
            let quitter = try await RawVarlinkConnection.connect(to: server.path)
            try await quitter.write(#"{"method":"org.navhost.test.Ec"#)
            try await quitter.close()
            let halfQuitter = try await RawVarlinkConnection.connect(to: server.path)
            try await halfQuitter.write(#"{"method":"org.navhost.test.Ec"#)
            try await halfQuitter.halfClose()
            #expect(try await halfQuitter.readUntilClosed().isEmpty)
            let client = try await VarlinkClient.connect(unixSocketPath: server.path)
            #expect(try await client.call("org.navhost.test.Echo", parameters: ["text": "fine"]) == ["text": "fine"])
            try await client.close()
        }
    }

    @Test("A message left unfinished past the partial-message timeout closes the connection")
    func partialMessageTimeout() async throws {
        var configuration = VarlinkServerConfiguration()
        configuration.partialMessageTimeout = .milliseconds(50)
        try await RunningServer.with(configuration: configuration) { server in
            let connection = try await RawVarlinkConnection.connect(to: server.path)
            try await connection.write(#"{"method":"#)
            #expect(try await connection.readUntilClosed().isEmpty)
        }
    }

    @Test("A client that stops reading its stream is closed after the send timeout; others are still served")
    func sendTimeout() async throws {
        var configuration = VarlinkServerConfiguration()
        configuration.sendTimeout = .milliseconds(200)
        try await RunningServer.with(configuration: configuration) { server in
            let other = try await VarlinkClient.connect(unixSocketPath: server.path)
            let silent = try await UnixStreamSocket.connect(to: server.path)
            var ended = server.recorder.watchEnded.makeAsyncIterator()
            await silent.write(#"{"method":"org.navhost.test.Watch","more":true}"# + "\0")
            // The handler streams until its writes back up; the timeout then closes the connection under it.
            #expect(await ended.next() == "CancellationError")
            #expect(silent.unreadBytes > 0, "the replies the server could write wait unread in the client's socket")
            let (bytes, _) = try await silent.readUntilClosed()
            #expect(bytes.last == 0, "what was written before the close is whole messages")
            #expect(try await other.call("org.navhost.test.Echo", parameters: ["text": "on"]) == ["text": "on"])
            try await other.close()
        }
    }

    @Test("Graceful shutdown ends even when a client has stopped reading the replies of its pipelined calls")
    func shutdownWithStalledClient() async throws {
        var configuration = VarlinkServerConfiguration()
        configuration.sendTimeout = .milliseconds(200)
        let silent = try await RunningServer.with(configuration: configuration) { server in
            let silent = try await UnixStreamSocket.connect(to: server.path)
            let text = String(repeating: "x", count: 60_000)
            let call = #"{"method":"org.navhost.test.Echo","parameters":{"text":"\#(text)"}}"# + "\0"
            // 200 replies of 60 kB: far more than the socket and NIO's buffer hold.
            let calls = String(repeating: call, count: 200)
            Task { await silent.write(calls) }
            let checker = try await VarlinkClient.connect(unixSocketPath: server.path)
            #expect(try await checker.call("org.navhost.test.Echo", parameters: ["text": "on"]) == ["text": "on"])
            try await checker.close()
            return silent
        }
        // `with` returns only once the server has stopped: the stalled connection did not hold it up.
        let (_, _) = try await silent.readUntilClosed()
    }

    @Test("Connections over the per-UID limit are closed at once")
    func connectionLimit() async throws {
        var configuration = VarlinkServerConfiguration()
        configuration.maxConnectionsPerUID = 1
        try await RunningServer.with(configuration: configuration) { server in
            let first = try await VarlinkClient.connect(unixSocketPath: server.path)
            #expect(try await first.call("org.navhost.test.Echo", parameters: ["text": "1"]) == ["text": "1"])
            let second = try await RawVarlinkConnection.connect(to: server.path)
            // The server may close before the write: either way, no reply comes.
            try? await second.send(VarlinkCall(method: "org.navhost.test.Echo", parameters: ["text": "2"]))
            #expect(try await second.readUntilClosed().isEmpty)
            try await first.close()
        }
    }

    @Test("Graceful shutdown answers calls in flight and ends streams with the shutdown error")
    func gracefulShutdown() async throws {
        let gates = Gates()
        let recorder = Recorder()
        let path = TestPaths.socketPath()
        let server = try await VarlinkServer.bind(
            unixSocketPath: path,
            service: try makeTestService(gates: gates, recorder: recorder),
            logger: quietLogger()
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            let waiter = try await RawVarlinkConnection.connect(to: path)
            try await waiter.send(VarlinkCall(method: "org.navhost.test.Note", parameters: ["text": "started"]))
            try await waiter.send(VarlinkCall(method: "org.navhost.test.Wait", parameters: ["gate": "g"]))
            let watcher = try await RawVarlinkConnection.connect(to: path)
            try await watcher.send(VarlinkCall(method: "org.navhost.test.Watch", more: true))
            _ = try await watcher.readMessages(1)
            var notes = recorder.notes.makeAsyncIterator()
            #expect(await notes.next() == "started")

            server.shutdownGracefully()
            gates.release("g")
            let waiterMessages = try await waiter.readUntilClosed()
            #expect(waiterMessages.last == #"{"parameters":{"gate":"g"}}"#)
            let watcherMessages = try await watcher.readUntilClosed()
            #expect(watcherMessages.last == #"{"error":"io.navhost.varlink.ServiceShuttingDown"}"#)
            group.addTask {
                try await Task.sleep(for: .seconds(10))
                throw TimedOut(what: "the server to stop")
            }
            try await group.next()
            group.cancelAll()
        }
    }
}

/// What a test writer's sink received.
private final class ReceivedParameters: Sendable {
    private let received = Mutex<[JSONObject]>([])
    func append(_ parameters: JSONObject) { received.withLock { $0.append(parameters) } }
    var all: [JSONObject] { received.withLock { $0 } }
}
