import Glibc
import NavHostJSON

/// How deep the JSON text of a state file nests, against what the daemon reads back.
///
/// The daemon reads its state files with `JSONParser()`, which refuses text nested deeper than
/// ``JSONParser/defaultMaxDepth`` levels (arrays, objects, and a value inside one: ``depth(of:)``). A file written deeper, a restorable state or a store value
/// nested that far, would be acknowledged and then refused at the next start: the session started afresh, the store
/// was set aside as corrupt. So the writers refuse it first (``check(_:enclosedIn:for:)``), as they refuse a file
/// larger than ``FileIO/largestFile``.
package enum JSONNesting {
    /// The deepest nesting of arrays and objects a state file may have: what the daemon's reader takes.
    package static let deepest = JSONParser.defaultMaxDepth

    /// How deep `text`, JSON as the daemon writes it, nests as the reader counts it: each array or object is a level,
    /// and so is a value inside one (json-c takes 64 empty arrays nested, but not 64 around a number). `[]` is 1,
    /// `[[]]` 2, `[1]` 2, `{"a":[]}` 2, `{"a":1}` 2. Brackets inside strings do not count.
    ///
    /// Strings are passed over with `memchr`: a store or a list near ``FileIO/largestFile`` is mostly string, which a
    /// byte-by-byte look made slow in a debug build.
    package static func depth(of text: [UInt8]) -> Int {
        text.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return 0 }
            var depth = 0
            var deepest = 0
            var index = 0
            while index < bytes.count {
                switch base[index] {
                case UInt8(ascii: "\""):
                    // A string, a value or a member's name: a name is followed by its value, as deep, so counting it
                    // adds nothing.
                    deepest = max(deepest, depth + 1)
                    index = closingQuote(in: bytes, after: index)
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                    deepest = max(deepest, depth)
                case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
                case UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"),
                    UInt8(ascii: "\r"):
                    break
                default:
                    // A number, `true`, `false` or `null`.
                    deepest = max(deepest, depth + 1)
                }
                index += 1
            }
            return deepest
        }
    }

    /// The index of the quote that closes the string opened at `opening` (the end of `bytes` when none does): the
    /// first quote after it not escaped, that is after an even number of backslashes.
    private static func closingQuote(in bytes: UnsafeBufferPointer<UInt8>, after opening: Int) -> Int {
        guard let base = bytes.baseAddress else { return bytes.count }
        var from = opening + 1
        while from < bytes.count, let found = memchr(base + from, Int32(UInt8(ascii: "\"")), bytes.count - from) {
            let quote = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
            var backslashes = 0
            while quote - backslashes - 1 > opening, base[quote - backslashes - 1] == UInt8(ascii: "\\") {
                backslashes += 1
            }
            if backslashes % 2 == 0 { return quote }
            from = quote + 1
        }
        return bytes.count
    }

    /// Refuses `text`, to be written to `path` inside `enclosing` levels of arrays and objects (a session's record in
    /// its envelope: 1), when the daemon would not read the file back.
    ///
    /// - Throws: ``FileAccessError/Code/tooDeep``; nothing is written.
    package static func check(_ text: [UInt8], enclosedIn enclosing: Int = 0, for path: String) throws(FileAccessError)
    {
        let nesting = enclosing + depth(of: text)
        guard nesting > deepest else { return }
        throw FileAccessError(
            code: .tooDeep,
            message: "the file would nest \(nesting) levels of arrays and objects, more than the \(deepest) the daemon "
                + "reads back",
            path: path
        )
    }
}
