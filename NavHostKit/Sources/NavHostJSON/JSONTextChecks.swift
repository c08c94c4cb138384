/// Follows JSON text, whole or fed in chunks, and finds where json-c's value would not say what the text says: an
/// object key that holds the escape `\u0000` (json-c keeps keys as C strings, so the key would be cut short), an
/// integer outside `Int64.min...UInt64.max` (json-c reads it as the nearer of the two, silently), and a string in
/// single quotes (json-c's strict mode still takes a key in them, which is not JSON, and whose quotes this reading
/// could not follow).
///
/// It reads text json-c accepts, so it need not know more of JSON than strings, numbers and the `:` after a key.
struct JSONTextChecks {
    private enum Place {
        /// Between strings and numbers.
        case outside
        /// In a string; `escape` is 0 outside an escape, 1 after a backslash, 2 after `\u`, and 3 to 5 after `\u` and
        /// one to three zeros.
        case inString(escape: Int)
        /// After a string that holds `\u0000`, before the next byte that is not white space.
        case afterStringHoldingNUL
        /// In a number.
        case inNumber
    }

    /// Whether an integer out of range is an error (``scan(_:from:)`` throws) or only noted in
    /// ``integersOutOfRange``.
    private let refusesIntegersOutOfRange: Bool
    private var place = Place.outside
    private var stringStart = 0
    private var holdsNUL = false
    private var number = IntegerLiteral(start: 0, isNegative: false)
    /// The integers out of range read so far, where each starts and ends, when they are not refused.
    private(set) var integersOutOfRange: [Range<Int>] = []

    /// - Parameter refusesIntegersOutOfRange: Whether an integer outside `Int64.min...UInt64.max` is an error.
    init(refusesIntegersOutOfRange: Bool) {
        self.refusesIntegersOutOfRange = refusesIntegersOutOfRange
    }

    /// Reads `bytes`, the text from offset `offset` of the value on.
    ///
    /// - Throws: ``JSONError`` for a key holding `\u0000` or a string in single quotes, and for an integer out of
    ///   range when those are refused.
    mutating func scan(_ bytes: UnsafeRawBufferPointer, from offset: Int) throws(JSONError) {
        for (index, byte) in bytes.enumerated() {
            switch place {
            case .outside:
                try start(at: offset + index, with: byte)
            case .inString(let escape):
                place = .inString(escape: Self.escape(after: escape, reading: byte))
                if escape == 5, byte == UInt8(ascii: "0") { holdsNUL = true }
                if escape == 0, byte == UInt8(ascii: "\"") { place = holdsNUL ? .afterStringHoldingNUL : .outside }
            case .afterStringHoldingNUL:
                if isJSONWhitespace(byte) { continue }
                if byte == UInt8(ascii: ":") { throw JSONParser.keyHoldingNUL(at: stringStart) }
                place = .outside
                try start(at: offset + index, with: byte)
            case .inNumber:
                if number.read(byte) { continue }
                try endNumber(at: offset + index)
                try start(at: offset + index, with: byte)
            }
        }
    }

    /// Ends the text at `offset`: a number at its very end is complete there.
    ///
    /// - Throws: ``JSONError`` for that number when it is an integer out of range and those are refused.
    mutating func finish(at offset: Int) throws(JSONError) {
        guard case .inNumber = place else { return }
        try endNumber(at: offset)
    }

    /// What `byte`, read between strings and numbers at `offset`, starts.
    private mutating func start(at offset: Int, with byte: UInt8) throws(JSONError) {
        if byte == UInt8(ascii: "'") { throw JSONParser.stringInSingleQuotes(at: offset) }
        if byte == UInt8(ascii: "\"") {
            place = .inString(escape: 0)
            stringStart = offset
            holdsNUL = false
        } else if byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            place = .inNumber
            number = IntegerLiteral(start: offset, isNegative: byte == UInt8(ascii: "-"))
            _ = number.read(byte)
        } else {
            place = .outside
        }
    }

    private mutating func endNumber(at offset: Int) throws(JSONError) {
        place = .outside
        guard number.isOutOfRange else { return }
        if refusesIntegersOutOfRange { throw JSONParser.integerOutOfRange(at: number.start) }
        integersOutOfRange.append(number.start..<offset)
    }

    /// How far into an escape a string is after `byte`, from `escape`.
    private static func escape(after escape: Int, reading byte: UInt8) -> Int {
        switch escape {
        case 0: byte == UInt8(ascii: "\\") ? 1 : 0
        case 1: byte == UInt8(ascii: "u") ? 2 : 0
        case 2...4: byte == UInt8(ascii: "0") ? escape + 1 : 0
        default: 0
        }
    }
}

// MARK: - Integers

/// A number read byte by byte, enough to tell whether it is an integer outside `Int64.min...UInt64.max` without
/// keeping its digits: how many significant digits it has, and how they compare with the limit's.
private struct IntegerLiteral {
    /// Where the number starts in the text.
    let start: Int
    let isNegative: Bool
    /// Whether no fraction or exponent has started: json-c reads a number with either as a `Double`, exactly enough.
    private var isInteger = true
    /// The digits after the leading zeros.
    private var significantDigits = 0
    /// How the significant digits so far compare with as many of the limit's first digits: below, equal or above.
    private var comparison = 0

    init(start: Int, isNegative: Bool) {
        self.start = start
        self.isNegative = isNegative
    }

    /// The digits of `-Int64.min` and of `UInt64.max`.
    private static let negativeLimit: StaticString = "9223372036854775808"
    private static let positiveLimit: StaticString = "18446744073709551615"

    /// Takes `byte` into the number; `false` when it does not belong to it (the number ended before it).
    mutating func read(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            guard isInteger, significantDigits > 0 || byte != UInt8(ascii: "0") else { return true }
            let limit = isNegative ? Self.negativeLimit : Self.positiveLimit
            if comparison == 0, significantDigits < limit.utf8CodeUnitCount {
                let digit = limit.utf8Start[significantDigits]
                comparison = byte < digit ? -1 : byte > digit ? 1 : 0
            }
            significantDigits += 1
            return true
        case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
            isInteger = false
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "+"):
            // The sign of an exponent, or the number's own (read when it started).
            return true
        default:
            return false
        }
    }

    /// Whether it is an integer json-c cannot hold.
    var isOutOfRange: Bool {
        let limit = isNegative ? Self.negativeLimit : Self.positiveLimit
        guard isInteger else { return false }
        return significantDigits > limit.utf8CodeUnitCount
            || (significantDigits == limit.utf8CodeUnitCount && comparison > 0)
    }
}
