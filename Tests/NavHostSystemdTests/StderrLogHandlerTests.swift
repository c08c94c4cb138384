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
