internal import CJSONC

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// Reads JSON text with json-c into ``JSONValue``s.
///
/// Parsing uses json-c's strict mode, validates UTF-8, refuses `NaN` and `Infinity`, and refuses documents that
/// nest arrays and objects deeper than ``maxDepth``. Errors carry the byte offset where the input went wrong.
///
/// An integer reads as ``JSONValue/int(_:)`` from `Int64.min` to `Int64.max`; one beyond either reads as a
/// ``JSONValue/double(_:)``, as near as a `Double` comes (json-c itself reads one beyond `UInt64.max` or below
/// `Int64.min` as that limit).
///
/// ```swift
/// let value = try JSONParser().parse(#"{"method":"io.navhost.Navigation.Stack"}"#)
/// ```
///
/// - Note: json-c 0.16 still accepts two extensions in strict mode: object keys in single quotes, which are refused
///   here (``JSONError/Code/syntax``), and a number ending in a bare `.` (`1.`), which reads as the value a person
///   would expect; NavHost's own output never contains either.
///
/// Use ``JSONIncrementalParser`` to read a value that arrives in chunks.
public struct JSONParser: Sendable {
    /// How deep arrays and objects may nest unless a caller says otherwise.
    public static let defaultMaxDepth = 64

    /// The deepest nesting of arrays and objects that parses; deeper input fails with
    /// ``JSONError/Code/depthLimitExceeded``. A scalar has depth 0, `[]` depth 1, `[[]]` depth 2; a value inside an
    /// array or object counts as a level of its own, so `[1]` has depth 2 (json-c's count).
    public var maxDepth: Int

    /// Creates a parser.
    ///
    /// - Parameter maxDepth: The deepest nesting of arrays and objects accepted.
    public init(maxDepth: Int = JSONParser.defaultMaxDepth) {
        precondition(maxDepth >= 1, "maxDepth must be at least 1")
        self.maxDepth = maxDepth
    }

    /// Parses exactly one JSON value; white space may surround it, anything else fails.
    ///
    /// - Parameter bytes: The complete document. A NUL after the value (white space may come before it) ends the
    ///   document: nothing after it is read.
    /// - Returns: The value.
    /// - Throws: ``JSONError`` with the offset of the first byte that is wrong.
    public func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONError) -> JSONValue {
        var length = bytes.count
        if length > 0, bytes[length - 1] == 0 { length -= 1 }
        let whole = UnsafeRawBufferPointer(rebasing: bytes[..<length])
        let parsed: (pointer: OpaquePointer?, end: Int)
        if length <= Self.largestCachedParse {
            parsed = try Tokenizer.withCached(maxDepth: maxDepth) { tokenizer throws(JSONError) in
                try Self.parseComplete(whole, with: tokenizer, maxDepth: maxDepth)
            }
        } else {
            parsed = try Self.parseComplete(
                whole,
                with: Tokenizer(maxDepth: maxDepth, validatesUTF8: true),
                maxDepth: maxDepth
            )
        }
        defer { json_object_put(parsed.pointer) }
        // What json-c read: up to a NUL that ends the value, when one does. None of the checks below look past it.
        let text = UnsafeRawBufferPointer(rebasing: whole[..<parsed.end])
        if let offset = Self.offsetOfKeyHoldingNUL(text) { throw Self.keyHoldingNUL(at: offset) }
        var readsAnIntegerLimit = false
        let value = try JSONValue(validating: parsed.pointer, readsAnIntegerLimit: &readsAnIntegerLimit)
        // json-c reads an integer beyond either limit as that limit, and takes a key in single quotes: only a value
        // that holds a limit, or text that holds a `'`, is looked at again.
        guard readsAnIntegerLimit || Self.holdsSingleQuote(text) else { return value }
        var checks = JSONTextChecks(refusesIntegersOutOfRange: false)
        try checks.scan(text, from: 0)
        try checks.finish(at: text.count)
        guard !checks.integersOutOfRange.isEmpty else { return value }
        return try parse(Self.decimals(of: checks.integersOutOfRange, in: text))
    }

    /// Whether `text` holds a `'` anywhere, in a string or not (`memchr` reads many bytes at a time).
    private static func holdsSingleQuote(_ text: UnsafeRawBufferPointer) -> Bool {
        guard let base = text.baseAddress else { return false }
        return memchr(base, Int32(UInt8(ascii: "'")), text.count) != nil
    }

    /// `text` with `.0` after each of its `integers` (outside `Int64.min...UInt64.max`), which json-c then reads as a
    /// `Double` (as it reads one above `Int64.max`), instead of as the nearer limit.
    private static func decimals(of integers: [Range<Int>], in text: UnsafeRawBufferPointer) -> [UInt8] {
        var widened: [UInt8] = []
        widened.reserveCapacity(text.count + 2 * integers.count)
        var copied = 0
        for integer in integers {
            widened.append(contentsOf: text[copied..<integer.upperBound])
            widened.append(contentsOf: ".0".utf8)
            copied = integer.upperBound
        }
        widened.append(contentsOf: text[copied...])
        return widened
    }

    /// The largest input parsed with a thread's kept tokenizer: json-c's buffer for strings and numbers grows to the
    /// longest one parsed and never shrinks, so a large document gets a tokenizer of its own.
    private static var largestCachedParse: Int { 64 * 1024 }

    /// Feeds the whole of `text`, then a NUL when the value is still open (json-c only knows that a number at the
    /// end is complete when it sees the byte after it), and returns the json-c object the caller must release, and
    /// the end of what json-c read: the offset of a NUL after the value, else `text.count`.
    private static func parseComplete(
        _ text: UnsafeRawBufferPointer,
        with tokenizer: Tokenizer,
        maxDepth: Int
    ) throws(JSONError) -> (pointer: OpaquePointer?, end: Int) {
        let base = text.baseAddress?.assumingMemoryBound(to: CChar.self)
        // ASCII text holds no UTF-8 to check: json-c's check costs a call per character (about 1,000 instructions
        // for a 100-byte Varlink call), and a scan for a byte above 0x7F a few per eight bytes.
        tokenizer.checksUTF8(!isASCII(text))
        do throws(JSONError) {
            if let base, let parsed = try tokenizer.feed(base, count: text.count) {
                // json-c stops at a NUL after the value: what follows it is not read, as when the input was handed
                // to json-c as a C string.
                var extra = parsed.end
                while extra < text.count, isJSONWhitespace(text[extra]) { extra += 1 }
                guard extra == text.count || text[extra] == 0 else {
                    json_object_put(parsed.pointer)
                    throw JSONError(
                        code: .trailingBytes,
                        message: "unexpected bytes after the end of the JSON value",
                        offset: extra
                    )
                }
                return (parsed.pointer, extra)
            }
            var terminator: CChar = 0
            guard let parsed = try tokenizer.feed(&terminator, count: 1, baseOffset: text.count) else {
                throw JSONError(
                    code: .incomplete,
                    message: "the input ended before the JSON value did",
                    offset: text.count
                )
            }
            return (parsed.pointer, text.count)
        } catch let error {
            // Strict json-c reports bytes after a complete value as an unexpected character.
            if error.code == .syntax, let offset = error.offset, offset > 0, offset < text.count, let base,
                Tokenizer(maxDepth: maxDepth, validatesUTF8: true).isCompleteValue(base, count: offset)
            {
                throw JSONError(
                    code: .trailingBytes,
                    message: "unexpected bytes after the end of the JSON value",
                    offset: offset
                )
            }
            throw error
        }
    }

    /// The error for an integer outside `Int64.min...UInt64.max` starting at `offset`, which json-c would read as the
    /// nearer limit (``JSONIncrementalParser`` refuses it).
    static func integerOutOfRange(at offset: Int) -> JSONError {
        JSONError(
            code: .syntax,
            message: "an integer is outside -9223372036854775808...18446744073709551615, which json-c reads exactly",
            offset: offset
        )
    }

    /// The error for a string in single quotes starting at `offset`: json-c's strict mode refuses one as a value but
    /// takes one as an object key.
    static func stringInSingleQuotes(at offset: Int) -> JSONError {
        JSONError(code: .syntax, message: "a string in single quotes is not JSON", offset: offset)
    }

    /// The error for an object key holding the escape `\u0000` at `offset`.
    static func keyHoldingNUL(at offset: Int) -> JSONError {
        JSONError(
            code: .syntax,
            message: "an object key holds \\u0000: json-c keeps keys as C strings, so it would be cut short",
            offset: offset
        )
    }

    /// Where the first object key that holds the escape `\u0000` starts in `bytes`, a valid JSON text; `nil` when
    /// none does (the common case costs one scan for a backslash followed by `u0000`).
    static func offsetOfKeyHoldingNUL(_ bytes: UnsafeRawBufferPointer) -> Int? {
        // Plain loops over the bytes: this runs on every message the daemon reads. With `contains(where:)` and
        // `allSatisfy` callgrind counted about 200 dynamic casts per message here.
        func escapeStarts(at index: Int) -> Bool {
            guard index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { return false }
            for offset in 2..<6 where bytes[index + offset] != UInt8(ascii: "0") { return false }
            return true
        }
        // The backslashes found by `memchr`, which reads many bytes at a time: a loop over the bytes one by one cost
        // about four instructions per byte of every message.
        guard let base = bytes.baseAddress else { return nil }
        var anyEscape = false
        var scan = 0
        while scan < bytes.count,
            let found = memchr(base + scan, Int32(UInt8(ascii: "\\")), bytes.count - scan)
        {
            let backslash = base.distance(to: UnsafeRawPointer(found))
            if escapeStarts(at: backslash) {
                anyEscape = true
                break
            }
            scan = backslash + 1
        }
        guard anyEscape else { return nil }
        var index = 0
        var stringStart: Int?
        var holdsNUL = false
        while index < bytes.count {
            let byte = bytes[index]
            if let start = stringStart {
                if byte == UInt8(ascii: "\\") {
                    if escapeStarts(at: index) { holdsNUL = true }
                    index += 2
                    continue
                }
                if byte == UInt8(ascii: "\"") {
                    stringStart = nil
                    var next = index + 1
                    while next < bytes.count, isJSONWhitespace(bytes[next]) { next += 1 }
                    if holdsNUL, next < bytes.count, bytes[next] == UInt8(ascii: ":") { return start }
                }
            } else if byte == UInt8(ascii: "\"") {
                stringStart = index
                holdsNUL = false
            }
            index += 1
        }
        return nil
    }

    /// Parses exactly one JSON value from bytes.
    public func parse(_ bytes: some Collection<UInt8>) throws(JSONError) -> JSONValue {
        let result = Array(bytes).withUnsafeBytes { raw in Result { () throws(JSONError) in try parse(raw) } }
        return try result.get()
    }

    /// Parses exactly one JSON value from text.
    public func parse(_ text: String) throws(JSONError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}

/// Reads one JSON value that arrives in chunks of any size, without collecting the chunks first.
///
/// Feed bytes as they come: ``feed(_:)`` returns `nil` while the value is still open and the value once it is
/// complete. A number at the very end can only be known complete at the end of input: call ``finish()`` then.
/// Offsets in errors count from the first byte fed. After a value or an error, call ``reset()`` to read another.
///
/// It refuses an object key in single quotes, as ``JSONParser`` does. Unlike ``JSONParser``, it refuses an integer
/// beyond `UInt64.max` or below `Int64.min`
/// (``JSONError/Code/syntax``, at the integer's first byte): json-c reads one as the nearer limit, and the chunks it
/// was read from are not kept to read it again.
public final class JSONIncrementalParser {
    private let maxDepth: Int
    private var tokenizer: Tokenizer
    private var consumed = 0
    private var sawContent = false
    private var checks = JSONTextChecks(refusesIntegersOutOfRange: true)

    /// Creates an incremental parser.
    ///
    /// - Parameter maxDepth: The deepest nesting of arrays and objects accepted.
    public init(maxDepth: Int = JSONParser.defaultMaxDepth) {
        self.maxDepth = maxDepth
        // json-c's UTF-8 check loses its place across chunks; strings are validated when converted instead.
        self.tokenizer = Tokenizer(maxDepth: maxDepth, validatesUTF8: false)
    }

    /// Feeds the next chunk; returns the value when this chunk completes it, otherwise `nil`.
    ///
    /// - Throws: ``JSONError``; ``JSONError/Code/trailingBytes`` when the chunk goes on after the value.
    public func feed(_ bytes: UnsafeRawBufferPointer) throws(JSONError) -> JSONValue? {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return nil }
        let chars = base.assumingMemoryBound(to: CChar.self)
        defer { consumed += bytes.count }
        if !sawContent { sawContent = bytes.contains { !isJSONWhitespace($0) } }
        guard let parsed = try tokenizer.feed(chars, count: bytes.count, baseOffset: consumed) else {
            try checks.scan(bytes, from: consumed)
            return nil
        }
        defer { json_object_put(parsed.pointer) }
        try checks.scan(UnsafeRawBufferPointer(rebasing: bytes[..<parsed.end]), from: consumed)
        try checks.finish(at: consumed + parsed.end)
        if let extra = (parsed.end..<bytes.count).first(where: { !isJSONWhitespace(bytes[$0]) }) {
            throw JSONError(
                code: .trailingBytes,
                message: "unexpected bytes after the end of the JSON value",
                offset: consumed + extra
            )
        }
        return try JSONValue(validating: parsed.pointer)
    }

    /// Feeds the next chunk; returns the value when this chunk completes it, otherwise `nil`.
    public func feed(_ bytes: some Collection<UInt8>) throws(JSONError) -> JSONValue? {
        let result = Array(bytes).withUnsafeBytes { raw in Result { () throws(JSONError) in try feed(raw) } }
        return try result.get()
    }

    /// Ends the input: returns a value only the end completes (a bare number), and fails if the value was cut off.
    public func finish() throws(JSONError) -> JSONValue {
        var terminator: CChar = 0
        guard sawContent, let parsed = try tokenizer.feed(&terminator, count: 1, baseOffset: consumed) else {
            throw JSONError(code: .incomplete, message: "the input ended inside a JSON value", offset: consumed)
        }
        defer { json_object_put(parsed.pointer) }
        try checks.finish(at: consumed)
        return try JSONValue(validating: parsed.pointer)
    }

    /// Forgets everything fed so far, to read a new value.
    public func reset() {
        tokenizer = Tokenizer(maxDepth: maxDepth, validatesUTF8: false)
        consumed = 0
        sawContent = false
        checks = JSONTextChecks(refusesIntegersOutOfRange: true)
    }
}

func isJSONWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
}

// MARK: - Tokenizer

/// Owns one json-c tokener; not thread-safe: one per stream, and one per thread for whole documents
/// (``withCached(maxDepth:_:)``).
final class Tokenizer {
    struct Parsed {
        var pointer: OpaquePointer?
        /// Offset just past the value, relative to the buffer passed in.
        var end: Int
    }

    private let tokener: UnsafeMutablePointer<json_tokener>

    init(maxDepth: Int, validatesUTF8: Bool) {
        tokener = json_tokener_new_ex(Int32(clamping: maxDepth))!
        json_tokener_set_flags(tokener, JSON_TOKENER_STRICT | (validatesUTF8 ? JSON_TOKENER_VALIDATE_UTF8 : 0))
    }

    deinit { json_tokener_free(tokener) }

    /// Turns json-c's UTF-8 check on or off for the next values parsed (a tokenizer made with `validatesUTF8`; one
    /// made without it is never handed text that is not known to be ASCII).
    fileprivate func checksUTF8(_ checks: Bool) {
        json_tokener_set_flags(tokener, JSON_TOKENER_STRICT | (checks ? JSON_TOKENER_VALIDATE_UTF8 : 0))
    }

    /// Runs `body` with this thread's tokenizer that validates UTF-8, reset: making a tokenizer allocates json-c's
    /// parse stack, which costs as much as parsing a small message. Only the default depth is kept; for another one,
    /// or while this thread's tokenizer is in use, `body` gets a new tokenizer. One that `body` failed with is freed.
    static func withCached<Result>(
        maxDepth: Int,
        _ body: (Tokenizer) throws(JSONError) -> Result
    ) throws(JSONError) -> Result {
        let key = cacheKey
        let slot = pthread_getspecific(key)
        guard maxDepth == JSONParser.defaultMaxDepth, slot != inUse else {
            return try body(Tokenizer(maxDepth: maxDepth, validatesUTF8: true))
        }
        guard let slot else {
            // The first on this thread stays for the parses after it.
            let tokenizer = Tokenizer(maxDepth: maxDepth, validatesUTF8: true)
            pthread_setspecific(key, Unmanaged.passRetained(tokenizer).toOpaque())
            return try withCached(maxDepth: maxDepth, body)
        }
        let tokenizer = Unmanaged<Tokenizer>.fromOpaque(slot).takeUnretainedValue()
        // Marked while in use, so that a parse within `body` makes its own.
        pthread_setspecific(key, inUse)
        do {
            let result = try body(tokenizer)
            json_tokener_reset(tokenizer.tokener)
            pthread_setspecific(key, slot)
            return result
        } catch {
            // Not reused after a failure: `json_tokener_reset` keeps a UTF-16 high surrogate that a failed parse
            // left pending, and json-c 0.16 then prefixes the next `\u` escape with U+FFFD.
            pthread_setspecific(key, nil)
            Unmanaged<Tokenizer>.fromOpaque(slot).release()
            throw error
        }
    }

    /// What the slot holds while its tokenizer is in use.
    private static var inUse: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: 1) }

    /// The thread-specific slot of ``withCached(maxDepth:_:)``; a thread's tokenizer is freed when the thread ends.
    private static let cacheKey: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { slot in
            if let slot { Unmanaged<Tokenizer>.fromOpaque(slot).release() }
        }
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()

    /// Feeds `count` bytes; returns a completed value, `nil` when more input is needed.
    func feed(_ base: UnsafePointer<CChar>, count: Int, baseOffset: Int = 0) throws(JSONError) -> Parsed? {
        let object = json_tokener_parse_ex(tokener, base, Int32(clamping: count))
        let status = json_tokener_get_error(tokener)
        let end = Int(json_tokener_get_parse_end(tokener))
        switch status {
        case json_tokener_success:
            return Parsed(pointer: object, end: end)
        case json_tokener_continue:
            return nil
        default:
            let reason = String(cString: json_tokener_error_desc(status))
            throw JSONError(code: Self.code(for: status), message: reason, offset: baseOffset + end)
        }
    }

    /// Whether the first `count` bytes at `base` are exactly one complete value.
    func isCompleteValue(_ base: UnsafePointer<CChar>, count: Int) -> Bool {
        let prefix = UnsafeMutablePointer<CChar>.allocate(capacity: count + 1)
        defer { prefix.deallocate() }
        prefix.initialize(from: base, count: count)
        prefix[count] = 0
        guard let parsed = try? feed(prefix, count: count + 1) else { return false }
        json_object_put(parsed.pointer)
        return true
    }

    private static func code(for status: json_tokener_error) -> JSONError.Code {
        switch status {
        case json_tokener_error_depth: return .depthLimitExceeded
        case json_tokener_error_parse_utf8_string: return .invalidUTF8
        case json_tokener_error_parse_eof: return .incomplete
        default: return .syntax
        }
    }
}

/// Whether every byte of `text` is below 0x80, tested eight bytes at a time.
private func isASCII(_ text: UnsafeRawBufferPointer) -> Bool {
    let highBits: UInt64 = 0x8080_8080_8080_8080
    var offset = 0
    var seen: UInt64 = 0
    while offset + 8 <= text.count {
        seen |= text.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        offset += 8
    }
    while offset < text.count {
        seen |= UInt64(text[offset])
        offset += 1
    }
    return seen & highBits == 0
}
