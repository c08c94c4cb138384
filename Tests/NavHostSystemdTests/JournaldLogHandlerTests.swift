import Foundation
import IntegrationHarness
import Logging
import NavHostSystemd
import Testing

/// The journald handler against a datagram socket the test owns, read back with an independent protocol parser.
@Suite("The journald handler speaks the native protocol")
struct JournaldLogHandlerTests {
    /// A journal socket in a fresh folder, a logger that writes to it, and the fallback pipe.
    private struct Journal {
        let directory: TemporaryDirectory
        let receiver: DatagramReceiver
        let socket: JournalSocket

        init(maximumDatagramSize: Int? = nil) throws {
            directory = try TemporaryDirectory()
            receiver = try DatagramReceiver(path: directory.appending("journal"))
            socket = try JournalSocket(path: receiver.path, maximumDatagramSize: maximumDatagramSize)
        }

        func logger(label: String = "navhost.test") -> Logger {
            Logger(label: label) { label in
                var handler = JournaldLogHandler(label: label, socket: socket, syslogIdentifier: "navhostd-test")
                handler.logLevel = .trace
                return handler
            }
        }

        func nextEntry() async throws -> (fields: [(name: String, value: String)], viaMemoryFile: Bool) {
            let datagram = try #require(
                try await receiver.receive(timeout: SpawnedProcess.patience),
                "nothing was sent"
            )
            #expect(datagram.senderPID == getpid())
            let (bytes, viaMemoryFile) = try NativeProtocolParser.entryBytes(of: datagram)
            return (try NativeProtocolParser.fields(of: bytes), viaMemoryFile)
        }
    }

    @Test("An event becomes one entry with MESSAGE, PRIORITY, CODE_*, SYSLOG_IDENTIFIER and the NAVHOST_* fields")
    func standardFields() async throws {
        let journal = try Journal()
        defer { journal.directory.remove() }
        var logger = journal.logger()
        logger[metadataKey: NavHostLogMetadataKey.plugin] = "Weather"
        logger[metadataKey: NavHostLogMetadataKey.session] = "s-42"
        let line: UInt = #line + 1
        logger.warning(
            "Route refused",
            metadata: [NavHostLogMetadataKey.route: "weather.detail", NavHostLogMetadataKey.clientPID: "1234"]
        )

        let (fields, viaMemoryFile) = try await journal.nextEntry()
        #expect(!viaMemoryFile)
        #expect(fields[field: "MESSAGE"] == "Route refused")
        #expect(fields[field: "PRIORITY"] == "4")
        #expect(fields[field: "CODE_FILE"] == "NavHostSystemdTests/JournaldLogHandlerTests.swift")
        #expect(fields[field: "CODE_LINE"] == "\(line)")
        #expect(fields[field: "CODE_FUNC"] == "standardFields()")
        #expect(fields[field: "SYSLOG_IDENTIFIER"] == "navhostd-test")
        #expect(fields[field: "NAVHOST_LOGGER"] == "navhost.test")
        #expect(fields[field: "NAVHOST_PLUGIN"] == "Weather")
        #expect(fields[field: "NAVHOST_SESSION"] == "s-42")
        #expect(fields[field: "NAVHOST_ROUTE"] == "weather.detail")
        #expect(fields[field: "NAVHOST_CLIENT_PID"] == "1234")
        #expect(fields.filter { $0.name == "MESSAGE" }.count == 1)
    }

    @Test("Each swift-log level maps to its syslog priority")
    func priorities() async throws {
        let journal = try Journal()
        defer { journal.directory.remove() }
        let logger = journal.logger()
        let expected: [(Logger.Level, String)] = [
            (.trace, "7"), (.debug, "7"), (.info, "6"), (.notice, "5"), (.warning, "4"), (.error, "3"),
            (.critical, "2"),
        ]
        for (level, _) in expected { logger.log(level: level, "level") }
        for (level, priority) in expected {
            #expect(try await journal.nextEntry().fields[field: "PRIORITY"] == priority, "\(level)")
        }
    }

    @Test("A multi-line message travels whole, in the protocol's binary form")
    func multiLineMessage() async throws {
        let journal = try Journal()
        defer { journal.directory.remove() }
        let message = "Plugin failed to load:\n  dlopen: undefined symbol\n\nsee the manifest"
        journal.logger().error("\(message)", metadata: ["detail": "a\nb"])

        let datagram = try #require(try await journal.receiver.receive(timeout: SpawnedProcess.patience))
        var lengthBytes: [UInt8] = []
        withUnsafeBytes(of: UInt64(message.utf8.count).littleEndian) { lengthBytes.append(contentsOf: $0) }
        let binaryForm = Array("MESSAGE\n".utf8) + lengthBytes + Array(message.utf8) + [UInt8(ascii: "\n")]
        #expect(datagram.bytes.starts(with: binaryForm), "MESSAGE leads, in binary form")

        let fields = try NativeProtocolParser.fields(of: datagram.bytes)
        #expect(fields[field: "MESSAGE"] == message)
        #expect(fields[field: "DETAIL"] == "a\nb")
        #expect(fields[field: "PRIORITY"] == "3")
    }

    @Test("Other metadata becomes field names journald accepts, and never replaces the handler's own fields")
    func metadataNames() async throws {
        let journal = try Journal()
        defer { journal.directory.remove() }
        journal.logger().info(
            "metadata",
            metadata: [
                "request.id": "r1",
                "_PID": "1",
                "2fa-method": "totp",
                "message": "forged",
                "http": ["method": "GET", "status": "200"],
                "tags": ["a", "b"],
                "...": "dropped",
                String(repeating: "k", count: 80): "long",
            ]
        )
        let fields = try await journal.nextEntry().fields
        #expect(fields[field: "REQUEST_ID"] == "r1")
        #expect(fields[field: "PID"] == "1", "a leading _ would forge a trusted field; it is dropped")
        #expect(fields[field: "FA_METHOD"] == "totp", "leading digits are dropped")
        #expect(fields[field: "MESSAGE"] == "metadata")
        #expect(fields[field: "META_MESSAGE"] == "forged")
        #expect(fields[field: "HTTP_METHOD"] == "GET")
        #expect(fields[field: "HTTP_STATUS"] == "200")
        #expect(fields[field: "TAGS"] == "[a, b]")
        #expect(fields[field: String(repeating: "K", count: 64)] == "long")
        #expect(fields.allSatisfy { JournalField.isValidName($0.name) }, "\(fields.map(\.name))")
        #expect(fields.count == 7 + 8, "seven own fields and eight from metadata: \(fields.map(\.name))")
    }

    @Test("An entry larger than the datagram limit travels as a sealed memfd")
    func largeEntryViaMemoryFile() async throws {
        let journal = try Journal(maximumDatagramSize: 4096)
        defer { journal.directory.remove() }
        let message = String(repeating: "navigation ", count: 1000)
        journal.logger().info("\(message)")
        let (fields, viaMemoryFile) = try await journal.nextEntry()
        #expect(viaMemoryFile)
        #expect(fields[field: "MESSAGE"] == message)
    }

    @Test("An entry larger than the kernel takes in one datagram falls back to a memfd by itself")
    func kernelLimitFallback() async throws {
        let journal = try Journal()
        defer { journal.directory.remove() }
        // 20 MiB: beyond any send buffer an unprivileged socket gets with the default net.core.wmem_max.
        let message = String(repeating: "0123456789abcdef", count: 20 * 1024 * 1024 / 16)
        let entry = JournalEntry(fields: [try #require(JournalField(name: "MESSAGE", value: message))])
        #expect(try journal.socket.send(entry) == .sealedMemoryFile)
        let (fields, viaMemoryFile) = try await journal.nextEntry()
        #expect(viaMemoryFile)
        #expect(fields[field: "MESSAGE"]?.utf8.count == message.utf8.count)
        #expect(fields[field: "MESSAGE"] == message)
    }

    @Test("When nobody listens on the journal socket, the line goes to the fallback descriptor")
    func fallbackToStandardError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let socket = try JournalSocket(path: directory.appending("nobody"))
        var pipeEnds: [Int32] = [0, 0]
        #expect(pipe(&pipeEnds) == 0)
        defer { close(pipeEnds[0]) }
        let handler = JournaldLogHandler(label: "t", socket: socket, fallbackFileDescriptor: pipeEnds[1])
        Logger(label: "t") { _ in handler }.error("journal gone", metadata: ["navhost.plugin": "Weather"])
        close(pipeEnds[1])
        let written = String(decoding: FileHandle(fileDescriptor: pipeEnds[0]).readDataToEndOfFile(), as: UTF8.self)
        #expect(written == "<3>journal gone navhost.plugin=Weather\n")
    }

    @Test("The native protocol encodes text and binary fields exactly")
    func serialization() throws {
        let entry = JournalEntry(fields: [
            try #require(JournalField(name: "A", value: "1")),
            try #require(JournalField(name: "B", value: "x\ny")),
            try #require(JournalField(name: "C", value: "")),
        ])
        let expected: [UInt8] =
            Array("A=1\nB\n".utf8) + [3, 0, 0, 0, 0, 0, 0, 0] + Array("x\ny\n".utf8) + Array("C=\n".utf8)
        #expect(entry.serialized() == expected)
    }

    @Test("Field names follow journald's rules")
    func fieldNames() {
        #expect(JournalField.isValidName("MESSAGE"))
        #expect(JournalField.isValidName("NAVHOST_CLIENT_PID"))
        #expect(JournalField.isValidName("A1"))
        #expect(!JournalField.isValidName(""))
        #expect(!JournalField.isValidName("_PID"))
        #expect(!JournalField.isValidName("1A"))
        #expect(!JournalField.isValidName("lower"))
        #expect(!JournalField.isValidName(String(repeating: "A", count: 65)))
        #expect(JournalField(name: "bad name", value: "x") == nil)
        #expect(JournalField.sanitizedName(forKey: "navhost.client.pid") == "NAVHOST_CLIENT_PID")
        #expect(JournalField.sanitizedName(forKey: "__x") == "X")
        #expect(JournalField.sanitizedName(forKey: "42") == nil)
        #expect(JournalField.sanitizedName(forKey: "ünïcode") == "N__CODE")
    }
}
