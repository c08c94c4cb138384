import NavHostKit
import Testing

@testable import NavHostStorage

/// ``SessionRecord/hasDurableContent(of:)`` and ``SessionRecord/isSameStack(_:_:)`` compare by hand, top screen
/// first, for speed: they must answer what `==` answers.
@Suite("Comparing session records")
struct SessionRecordComparisonTests {
    static let base = SessionRecordJSONTests.records[1]

    /// The base record with one thing changed: each member of each screen in turn, the screens' number, and the
    /// record's own members.
    static var variants: [(String, SessionRecord)] {
        var variants: [(String, SessionRecord)] = [("the same record, its stack in other storage", copied(base))]
        for index in base.stack.indices {
            func changing(_ what: String, _ change: (inout SessionRecord.Screen) -> Void) {
                var record = copied(base)
                change(&record.stack[index])
                variants.append(("screen \(index)'s \(what)", record))
            }
            changing("id") { $0.id = ScreenID("other") }
            changing("route") { $0.route = "other.route" }
            changing("parameters") { $0.parameters["added"] = 1 }
            changing("presentation") { $0.presentation = $0.presentation == .push ? .modal : .push }
            changing("restorable state") { $0.restorable = ["other": true] }
            changing("opener") { $0.openedBy = ScreenID("s99") }
        }
        var shorter = base
        shorter.stack.removeLast()
        variants.append(("one screen fewer", shorter))
        var revision = base
        revision.revision += 1
        variants.append(("the revision, which is not durable content", revision))
        var reserved = base
        reserved.reservedRevision += SessionRecord.revisionBlock
        variants.append(("the reserved revision", reserved))
        var numbered = base
        numbered.nextScreenNumber += 1
        variants.append(("the next screen number", numbered))
        var named = base
        named.session = "other"
        variants.append(("the session's name", named))
        return variants
    }

    /// `record` with its stack in new storage, equal to the old.
    static func copied(_ record: SessionRecord) -> SessionRecord {
        var copy = record
        copy.stack = record.stack.map { $0 }
        copy.stack.reserveCapacity(record.stack.count + 1)
        return copy
    }

    @Test("They answer what == answers, whatever differs", arguments: variants.map(\.0))
    func agreesWithEquality(change: String) throws {
        let other = try #require(Self.variants.first { $0.0 == change }?.1)
        let base = Self.base
        #expect(base.hasDurableContent(of: other) == (base.durableContent == other.durableContent))
        #expect(other.hasDurableContent(of: base) == (base.durableContent == other.durableContent))
        #expect(SessionRecord.isSameStack(base.stack, other.stack) == (base.stack == other.stack))
        #expect(SessionRecord.isSameStack(other.stack, base.stack) == (base.stack == other.stack))
    }

    @Test("A stack is the same as itself, and empty stacks are the same")
    func sameStorage() {
        #expect(SessionRecord.isSameStack(Self.base.stack, Self.base.stack))
        #expect(SessionRecord.isSameStack([], []))
        #expect(!SessionRecord.isSameStack([], Self.base.stack))
        #expect(Self.base.hasDurableContent(of: Self.base))
    }

    @Test("Stacks found different are remembered by their storage, and a stack changed since is compared again")
    func differentStacksAreRemembered() {
        var comparisons = SessionRecord.DifferentStacks()
        let durable = Self.base.stack
        let top = durable.count - 1
        var stack = Self.copied(Self.base).stack
        stack[top].restorable = ["draft": "changed"]

        let first = comparisons.isSame(durable, stack)
        let again = comparisons.isSame(durable, stack)
        let equalElsewhere = comparisons.isSame(durable, Self.copied(Self.base).stack)
        // Changed back through the only other reference to the storage remembered: kept by the memory, that storage
        // is copied before the change, and the stack is compared again.
        stack[top].restorable = durable[top].restorable
        let changedBack = comparisons.isSame(durable, stack)
        let reversed = comparisons.isSame(Self.copied(Self.base).stack, durable)

        #expect(!first && !again)
        #expect(equalElsewhere, "an equal stack in other storage")
        #expect(changedBack, "a stack changed back to the durable one")
        #expect(reversed)
    }
}
