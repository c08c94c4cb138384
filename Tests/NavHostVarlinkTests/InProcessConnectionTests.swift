import IntegrationHarness
import Logging
import NIOCore
import NIOPosix
import NavHostJSON
import NavHostVarlink
import Synchronization
import Testing

@testable import NavHostVarlink

/// `VarlinkServer.makeConnection` and `serveConnection`, the seam the fuzzer drives: a connection served over
/// an in-process channel behaves as one served over a socket.
@Suite("A Varlink connection served in-process")
struct InProcessConnectionTests {
    @Test("Pipelined calls split across reads are answered in order, and the connection closes after the input ends")
    func pipelinedAndSplit() async throws {
        let connection = try await InProcessVarlinkConnection.start(service: try Self.service())
        let input =
            #"{"method":"org.navhost.test.Echo","parameters":{"text":"a"}}"# + "\0"
            + #"{"method":"org.navhost.test.Note","parameters":{"text":"quiet"},"oneway":true}"# + "\0"
            + #"{"method":"org.navhost.test.Count","parameters":{"to":2},"more":true}"# + "\0"
            + #"{"method":"org.navhost.test.Nope"}"# + "\0"
        let bytes = Array(input.utf8)
        for piece in stride(from: 0, to: bytes.count, by: 7) {
            await connection.write(bytes[piece..<min(piece + 7, bytes.count)])
        }
        await connection.endInput()
        let replies = try await Self.readAll(connection)
        #expect(
            replies == [
                VarlinkReply(parameters: ["text": "a"]),
                VarlinkReply(parameters: ["number": 1], continues: true),
                VarlinkReply(parameters: ["number": 2]),
                VarlinkReply(error: .methodNotFound("org.navhost.test.Nope")),
            ]
        )
        await connection.finish()
    }

    @Test("A message that is not JSON closes the connection after the replies already written")
    func invalidJSONCloses() async throws {
        let connection = try await InProcessVarlinkConnection.start(service: try Self.service())
        await connection.write(Array((#"{"method":"org.navhost.test.Echo","parameters":{"text":"a"}}"# + "\0").utf8))
        let first = await connection.nextMessage()
        #expect(first.map { String(buffer: $0) } == #"{"parameters":{"text":"a"}}"# + "\0")
        await connection.write(Array("{\"method\":\0".utf8))
        #expect(try await Self.readAll(connection).isEmpty)
        await connection.finish()
    }

    @Test("A message over the size limit closes the connection before it is parsed")
    func oversizeCloses() async throws {
        var configuration = VarlinkServerConfiguration()
        configuration.maxMessageSize = 16
        let connection = try await InProcessVarlinkConnection.start(
            service: try Self.service(),
            configuration: configuration
        )
        await connection.write(Array(repeating: UInt8(ascii: " "), count: 17))
        #expect(try await Self.readAll(connection).isEmpty)
        await connection.finish()
    }

    @Test("Shutting down ends a running more call with the shutdown error, then closes")
    func shutdownEndsStream() async throws {
        let connection = try await InProcessVarlinkConnection.start(service: try Self.service())
        // Not Watch: the in-process channel never pushes back, so a stream as fast as the CPU would pile up ticks
        // faster than this test reads them, and the final reply would sit behind all of them.
        await connection.write(Array((#"{"method":"org.navhost.test.Pulse","more":true}"# + "\0").utf8))
        let first = try #require(await connection.nextMessage())
        #expect(try Self.reply(first) == VarlinkReply(parameters: ["tick": 1], continues: true))
        connection.shutDown()
        let rest = try await Self.readAll(connection)
        let shuttingDown = VarlinkReply(error: VarlinkError(name: "io.navhost.varlink.ServiceShuttingDown"))
        #expect(rest.last == shuttingDown)
        #expect(rest.dropLast().allSatisfy { $0.continues })
        await connection.finish()
    }

    @Test("Handlers see the peer the caller named")
    func peerIsPassedThrough() async throws {
        let peer = VarlinkPeerCredentials(pid: 7, uid: 1000, gid: 100)
        let connection = try await InProcessVarlinkConnection.start(service: try Self.service(), peer: peer)
        await connection.write(Array((#"{"method":"org.navhost.test.WhoAmI"}"# + "\0").utf8))
        await connection.endInput()
        #expect(try await Self.readAll(connection) == [VarlinkReply(parameters: ["pid": 7, "uid": 1000, "gid": 100])])
        await connection.finish()
    }

    // MARK: - Helpers

    @Test("A socket channel closed before it ever became active still finishes its connection")
    func closedBeforeActive() async throws {
        // A connect that fails closes the channel before it is active: its handlers are removed, and none is told
        // `channelInactive`. A server waits on `finished` before it lets the connection go.
        let service = try Self.service()
        let made = Mutex<ServedConnection?>(nil)
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                let connection = try VarlinkServer.makeConnection(
                    channel,
                    service: service,
                    peer: nil,
                    configuration: VarlinkServerConfiguration(),
                    logger: Logger(label: "test")
                )
                made.withLock { $0 = connection }
            }
        }
        await #expect(throws: (any Error).self) {
            try await bootstrap.connect(unixDomainSocketPath: "/nonexistent/navhost-test.sock").get()
        }
        let connection = try #require(made.withLock { $0 })
        let finished = Mutex(false)
        try await connection.channel.eventLoop.submit {
            connection.handler.value.finished.whenComplete { _ in finished.withLock { $0 = true } }
        }.get()
        #expect(try await pollUntil { finished.withLock { $0 } })
    }

    private static func service() throws -> VarlinkService {
        try makeTestService(gates: Gates(), recorder: Recorder())
    }

    private static func reply(_ message: ByteBuffer) throws -> VarlinkReply {
        var message = message
        #expect(message.readableBytesView.last == 0)
        message.moveWriterIndex(to: message.writerIndex - 1)
        return try VarlinkReply(parsing: JSONParser().parse(message.readableBytesView))
    }

    private static func readAll(_ connection: InProcessVarlinkConnection) async throws -> [VarlinkReply] {
        let messages = try await withTimeout(.seconds(10), "the connection to close") {
            var messages: [ByteBuffer] = []
            while let message = await connection.nextMessage() { messages.append(message) }
            return messages
        }
        return try messages.map(reply)
    }
}
