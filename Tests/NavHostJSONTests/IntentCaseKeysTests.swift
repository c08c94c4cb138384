import NavHostJSON
import NavHostKit
import Testing

/// The decoder keeps the keys of each intent case it decodes for the life of the process, by the case's key type and
/// its name (`allKeys` of `JSONValueDecoder`'s case container). Two enums with a case of the same name, whose
/// arguments differ, must each decode their own, whichever was decoded first; and a case reads all its arguments
/// however many it declares.
///
/// Each order has its own pair of enums: the keys kept for a pair stay kept for the other tests. The shared case,
/// `select`, is declared second in one enum of a pair and first in the other, so that the keys of one enum handed to
/// the other would name another of its cases.
@Suite("The kept keys of an intent's case are its own enum's")
struct IntentCaseKeysTests {
    enum LampDecodedFirst: ViewModelIntent, Equatable {
        case dim(level: Int)
        case select(lamp: String, brightness: Int?)

        static let names = ["dim", "select"]
    }

    enum ShelfDecodedSecond: ViewModelIntent, Equatable {
        case select(row: Int, column: Int)
        case dim

        static let names = ["select", "dim"]
    }

    enum LampDecodedSecond: ViewModelIntent, Equatable {
        case dim(level: Int)
        case select(lamp: String, brightness: Int?)

        static let names = ["dim", "select"]
    }

    enum ShelfDecodedFirst: ViewModelIntent, Equatable {
        case select(row: Int, column: Int)
        case dim

        static let names = ["select", "dim"]
    }

    /// The error of an intent whose argument `label` is missing.
    static func missing(_ label: String, of intent: String) -> IntentError {
        .invalidArguments(intent: intent, reason: #"JSON keyNotFound: missing member "\#(label)" (at \#(label))"#)
    }

    /// The error of an intent given an argument `label` it does not take.
    static func unknown(_ label: String, of intent: String) -> IntentError {
        .invalidArguments(intent: intent, reason: #"JSON unknownMember: unknown member "\#(label)" (at \#(label))"#)
    }

    static let lampSelect = IntentMessage(name: "select", arguments: ["lamp": "desk", "brightness": 40])
    static let shelfSelect = IntentMessage(name: "select", arguments: ["row": 2, "column": 5])

    @Test("A lamp's select decoded first, then a shelf's: each reads its own labels, again and again")
    func lampFirst() throws {
        #expect(try Self.lampSelect.decode(as: LampDecodedFirst.self) == .select(lamp: "desk", brightness: 40))
        #expect(try Self.shelfSelect.decode(as: ShelfDecodedSecond.self) == .select(row: 2, column: 5))
        #expect(try Self.lampSelect.decode(as: LampDecodedFirst.self) == .select(lamp: "desk", brightness: 40))
        #expect(try Self.shelfSelect.decode(as: ShelfDecodedSecond.self) == .select(row: 2, column: 5))
        // Each refuses the other's labels, as its own enum says.
        #expect(throws: Self.missing("row", of: "select")) {
            try Self.lampSelect.decode(as: ShelfDecodedSecond.self)
        }
        #expect(throws: Self.missing("lamp", of: "select")) {
            try Self.shelfSelect.decode(as: LampDecodedFirst.self)
        }
        // The other cases of both enums are still found.
        #expect(try IntentMessage(name: "dim").decode(as: ShelfDecodedSecond.self) == .dim)
        #expect(
            try IntentMessage(name: "dim", arguments: ["level": 3]).decode(as: LampDecodedFirst.self) == .dim(level: 3)
        )
    }

    @Test("A shelf's select decoded first, then a lamp's: each reads its own labels, again and again")
    func shelfFirst() throws {
        #expect(try Self.shelfSelect.decode(as: ShelfDecodedFirst.self) == .select(row: 2, column: 5))
        #expect(try Self.lampSelect.decode(as: LampDecodedSecond.self) == .select(lamp: "desk", brightness: 40))
        #expect(try Self.shelfSelect.decode(as: ShelfDecodedFirst.self) == .select(row: 2, column: 5))
        #expect(try Self.lampSelect.decode(as: LampDecodedSecond.self) == .select(lamp: "desk", brightness: 40))
        #expect(throws: Self.missing("row", of: "select")) {
            try Self.lampSelect.decode(as: ShelfDecodedFirst.self)
        }
        #expect(throws: Self.missing("lamp", of: "select")) {
            try Self.shelfSelect.decode(as: LampDecodedSecond.self)
        }
        #expect(try IntentMessage(name: "dim").decode(as: ShelfDecodedFirst.self) == .dim)
        #expect(
            try IntentMessage(name: "dim", arguments: ["level": 3]).decode(as: LampDecodedSecond.self) == .dim(level: 3)
        )
    }

    // MARK: - A case of more than 64 arguments

    /// 65 arguments, one more than a bit each in a 64-bit word would hold.
    enum Wide: ViewModelIntent, Encodable {
        case wide(
            a0: Int,
            a1: Int,
            a2: Int,
            a3: Int,
            a4: Int,
            a5: Int,
            a6: Int,
            a7: Int,
            a8: Int,
            a9: Int,
            a10: Int,
            a11: Int,
            a12: Int,
            a13: Int,
            a14: Int,
            a15: Int,
            a16: Int,
            a17: Int,
            a18: Int,
            a19: Int,
            a20: Int,
            a21: Int,
            a22: Int,
            a23: Int,
            a24: Int,
            a25: Int,
            a26: Int,
            a27: Int,
            a28: Int,
            a29: Int,
            a30: Int,
            a31: Int,
            a32: Int,
            a33: Int,
            a34: Int,
            a35: Int,
            a36: Int,
            a37: Int,
            a38: Int,
            a39: Int,
            a40: Int,
            a41: Int,
            a42: Int,
            a43: Int,
            a44: Int,
            a45: Int,
            a46: Int,
            a47: Int,
            a48: Int,
            a49: Int,
            a50: Int,
            a51: Int,
            a52: Int,
            a53: Int,
            a54: Int,
            a55: Int,
            a56: Int,
            a57: Int,
            a58: Int,
            a59: Int,
            a60: Int,
            a61: Int,
            a62: Int,
            a63: Int,
            a64: Int
        )

        static let names = ["wide"]
    }

    static let wideLabels = (0..<65).map { "a\($0)" }

    /// Every argument, each its own value (its number times 3), in reverse order of declaration.
    static var wideArguments: JSONObject {
        var arguments = JSONObject()
        for number in (0..<65).reversed() { arguments["a\(number)"] = .int(Int64(number * 3)) }
        return arguments
    }

    @Test("A case of 65 arguments reads each into its own label, and refuses one missing or one unknown by name")
    func caseOfManyArguments() throws {
        #expect(Wide.arguments["wide"]?.map(\.name) == Self.wideLabels)
        let intent = try IntentMessage(name: "wide", arguments: Self.wideArguments).decode(as: Wide.self)
        // Encoded again, the case holds each argument under its label: nothing shifted or dropped past the 64th.
        let encoded = try #require(try JSONValueEncoder().encode(intent).objectValue?["wide"]?.objectValue)
        #expect(encoded.keys == Self.wideLabels)
        for label in Self.wideLabels { #expect(encoded[label] == Self.wideArguments[label], "\(label)") }

        var missingLast = Self.wideArguments
        missingLast["a64"] = nil
        #expect(throws: Self.missing("a64", of: "wide")) {
            try IntentMessage(name: "wide", arguments: missingLast).decode(as: Wide.self)
        }
        var oneMore = Self.wideArguments
        oneMore["a65"] = 1
        #expect(throws: Self.unknown("a65", of: "wide")) {
            try IntentMessage(name: "wide", arguments: oneMore).decode(as: Wide.self)
        }
    }
}
