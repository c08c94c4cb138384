import Foundation
import Logging
import NavHostSystemd
import Testing

@Suite("The stderr handler writes sd-daemon priority prefixes")
struct StderrLogHandlerTests {
    /// Logs through a handler writing to a pipe and returns what it wrote.
    private func written(_ body: (Logger) -> Void) -> String {
        var ends: [Int32] = [0, 0]
        pipe(&ends)
        let writeEnd = ends[1]
        var logger = Logger(label: "navhost.test") { label in StderrLogHandler(label: label, fileDescriptor: writeEnd) }
        logger.logLevel = .trace
        body(logger)
        close(writeEnd)
        defer { close(ends[0]) }
        return String(decoding: FileHandle(fileDescriptor: ends[0]).readDataToEndOfFile(), as: UTF8.self)
    }

    @Test("Every line starts with its syslog priority, and metadata follows the last line as key=value")
    func prefixes() {
        let text = written { logger in
            logger.info("Plugin loaded", metadata: ["navhost.plugin": "Weather", "version": "1.2.0"])
            logger.error("Plugin failed:\nundefined symbol", metadata: ["navhost.plugin": "Radio"])
            logger.debug("with a space", metadata: ["reason": "two words"])
        }
        #expect(
            text == """
                <6>Plugin loaded navhost.plugin=Weather version=1.2.0
                <3>Plugin failed:
                <3>undefined symbol navhost.plugin=Radio
                <7>with a space reason="two words"

                """
        )
    }

    @Test("On a terminal a line starts with the local time and the level's name; other lines are indented under it")
    func readableOnATerminal() throws {
        var ends: [Int32] = [0, 0]
        pipe(&ends)
        #expect(StderrLogHandler.Style.forDescriptor(ends[1]) == .prefixed, "a pipe is read by a program")
        let terminal = open("/dev/ptmx", O_RDWR | O_NOCTTY)  // a pseudo-terminal's master end is a terminal
        try #require(terminal >= 0)
        defer { close(terminal) }
        #expect(StderrLogHandler.Style.forDescriptor(terminal) == .readable, "a terminal is read by a person")

        var logger = Logger(label: "x") { label in
            StderrLogHandler(label: label, fileDescriptor: ends[1], style: .readable)
        }
        logger.logLevel = .trace
        logger.warning("Plugin refused:\nneeded by Home", metadata: ["navhost.plugin": "Settings"])
        close(ends[1])
        let text = String(decoding: FileHandle(fileDescriptor: ends[0]).readDataToEndOfFile(), as: UTF8.self)
        close(ends[0])

        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        try #require(lines.count == 3, "two lines and the final newline: \(text)")
        #expect(!text.contains("<"), "no priority prefix")
        // 2026-11-25T20:10:42.318+0100 warning  Plugin refused:
        let time = String(lines[0].prefix(28))
        #expect(time.count == 28 && time.dropFirst(10).first == "T" && time.dropFirst(19).first == ".", "\(time)")
        #expect(time.dropFirst(23).first == "+" || time.dropFirst(23).first == "-", "a UTC offset: \(time)")
        #expect(lines[0].dropFirst(28) == " warning  Plugin refused:")
        #expect(lines[1] == String(repeating: " ", count: 38) + "needed by Home navhost.plugin=Settings")
        #expect(lines[2] == "")
    }

    @Test("The handler's own metadata, the provider's and the event's are merged, the event's winning")
    func metadataMerge() {
        var ends: [Int32] = [0, 0]
        pipe(&ends)
        var handler = StderrLogHandler(
            label: "x",
            fileDescriptor: ends[1],
            metadataProvider: .init { ["task": "provided", "shared": "provider"] }
        )
        handler.metadata = ["shared": "handler", "own": "1"]
        Logger(label: "x") { _ in handler }.warning("merged", metadata: ["shared": "event"])
        close(ends[1])
        let merged = String(decoding: FileHandle(fileDescriptor: ends[0]).readDataToEndOfFile(), as: UTF8.self)
        close(ends[0])
        #expect(merged == "<4>merged own=1 shared=event task=provided\n")
    }
}
