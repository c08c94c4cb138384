import InMemoryLogging
import Logging
import NavHostVarlink
import Testing

/// The bound on how often a message clients can cause is logged.
@Suite("LogBudget")
struct LogBudgetTests {
    @Test("Past its lines in an interval a budget holds lines back, and the next line out says how many")
    func holdsBackAndCounts() async throws {
        let logs = InMemoryLogHandler()
        let logger = Logger(label: "test") { _ in logs }
        // An interval of 2 s, not 0.2 s: the eight lines, and the two after the pause, must each fall in one interval,
        // and a test process on two loaded cores can be left without a turn for more than 0.2 s between two of them.
        let budget = LogBudget(lines: 3, per: .seconds(2))
        for number in 1...8 { budget.log(.info, "refused \(number)", to: logger) }
        #expect(logs.entries.map(\.message.description) == ["refused 1", "refused 2", "refused 3"])
        #expect(logs.entries.allSatisfy { $0.metadata["log.suppressed"] == nil })

        try await Task.sleep(for: .milliseconds(2_050))
        budget.log(.info, "refused 9", metadata: ["uid": "65534"], to: logger)
        // The count on a line of its own, not on the next client's line, where it would read as that client's.
        let held = logs.entries[logs.entries.count - 2]
        let line = try #require(logs.entries.last)
        #expect(held.message.description.hasPrefix("Held back 5 lines like the next one"), "\(held.message)")
        #expect(held.metadata["log.suppressed"] == "5" && held.metadata["uid"] == nil, "\(held.metadata)")
        #expect(line.message.description == "refused 9" && line.metadata["log.suppressed"] == nil)
        budget.log(.info, "refused 10", to: logger)
        #expect(logs.entries.count == 6, "counted once")
    }

    @Test("Each kind has a budget of its own: a flood of one kind does not hold back another")
    func kindsApart() {
        let logs = InMemoryLogHandler()
        let logger = Logger(label: "test") { _ in logs }
        let budget = LogBudget(lines: 2, per: .seconds(60))
        for _ in 0..<5 { budget.log(.info, "invalid JSON", kind: "invalidJSON", to: logger) }
        budget.log(.info, "too slow", kind: "sendTimeout", to: logger)
        #expect(logs.entries.map(\.message.description) == ["invalid JSON", "invalid JSON", "too slow"])
    }

    @Test("A level the logger leaves out spends nothing of the budget")
    func levelsNotLoggedAreFree() {
        let logs = InMemoryLogHandler()
        var logger = Logger(label: "test") { _ in logs }
        logger.logLevel = .notice
        let budget = LogBudget(lines: 1, per: .seconds(60))
        for _ in 0..<5 { budget.log(.info, "quiet", to: logger) }
        budget.log(.warning, "loud", to: logger)
        #expect(logs.entries.map(\.message.description) == ["loud"])
        #expect(logs.entries.first?.metadata["log.suppressed"] == nil)
    }
}
