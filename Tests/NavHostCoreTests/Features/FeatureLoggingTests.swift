import InMemoryLogging
import Logging
import NavHostCore
import NavHostKit
import Testing

@Suite("A feature's FeatureLogger writes through the daemon's swift-log logger")
struct FeatureLoggingTests {
    @Test("Every level arrives as swift-log's level of the same name, with the feature's and the entry's metadata")
    func levelsAndMetadata() {
        let logs = InMemoryLogHandler()
        var base = Logger(label: "navhost.test") { _ in logs }
        base.logLevel = .trace
        let logger = FeatureLogger(swiftLog: base, feature: "Orders")

        for level in FeatureLogger.Level.allCases {
            logger.log(level: level, "orders.\(level)", metadata: ["count": "3"])
        }

        #expect(logs.entries.map(\.level) == Logger.Level.allCases)
        #expect(logs.entries.map(\.message.description) == FeatureLogger.Level.allCases.map { "orders.\($0)" })
        #expect(logs.entries.allSatisfy { $0.metadata["navhost.plugin"] == "Orders" && $0.metadata["count"] == "3" })
    }

    @Test("Below the daemon's level, the message is never built")
    func belowTheLevelNothingIsBuilt() {
        let logs = InMemoryLogHandler()
        var base = Logger(label: "navhost.test") { _ in logs }
        base.logLevel = .warning
        let logger = FeatureLogger(swiftLog: base, feature: "Orders")
        var built = 0
        func message() -> String {
            built += 1
            return "orders.debug"
        }

        logger.debug(message())
        logger.warning("orders.warning")

        #expect(built == 0)
        #expect(!logger.isEnabled(.info))
        #expect(logs.entries.map(\.message.description) == ["orders.warning"])
    }
}
