// MARK: - Public entry point

extension VarlinkInterface {
    /// Parses an interface definition.
    ///
    /// Follows the grammar of the UAPI Varlink specification: `interface` first, then at least one `type`, `method`
    /// or `error` declaration, each starting on a new line; `#` comments anywhere white space may go. Comments right
    /// before a declaration or a field become its documentation. After parsing, the interface is checked: names are
    /// unique, names follow the spelling rules, and every type name refers to a `type` of the interface.
    ///
    /// - Parameter description: The definition, as it will be served by `GetInterfaceDescription`.
    /// - Throws: ``VarlinkIDLError`` with the line and column of the first problem.
    public init(parsing description: String) throws(VarlinkIDLError) {
        var parser = VarlinkIDLParser(text: description)
        self = try parser.parseInterface()
    }
}

// MARK: - Parser

/// A recursive-descent parser over the bytes of an interface definition.
struct VarlinkIDLParser {
    private enum Token: Equatable {
        case word(String)
        case symbol(String)
        case end
    }

    private let text: String
    private let bytes: [UInt8]
    private var position = 0
    /// Comment lines seen since the last token, for the next declaration's or field's documentation.
    private var pendingComments: [String] = []
    /// Whether a line break came between the last token and the next one.
    private var lineBreakBeforeNext = false
    /// Where the last token taken started, for error positions.
    private var tokenStart = 0

    init(text: String) {
        self.text = text
        self.bytes = Array(text.utf8)
    }

    mutating func parseInterface() throws(VarlinkIDLError) -> VarlinkInterface {
        skipTrivia()
        let documentation = takeDocumentation()
        try expectWord("interface")
        let name = try takeWord(what: "an interface name")
        guard VarlinkNames.isInterfaceName(Substring(name)) else {
            throw error(.invalidName, "\"\(name)\" is not a valid interface name (like org.example.service)")
        }
        var members: [VarlinkInterface.Member] = []
        while true {
            skipTrivia()
            if position >= bytes.count { break }
            if !lineBreakBeforeNext {
                throw error(.syntax, "a declaration must start on a new line", at: position)
            }
            members.append(try parseMember())
        }
        guard !members.isEmpty else {
            throw error(.syntax, "an interface needs at least one type, method or error", at: position)
        }
        let interface = VarlinkInterface(
            name: name,
            documentation: documentation,
            description: text,
            members: members
        )
        try VarlinkIDLChecker(interface: interface, parser: self).check()
        return interface
    }

    // MARK: Declarations

    private mutating func parseMember() throws(VarlinkIDLError) -> VarlinkInterface.Member {
        let documentation = takeDocumentation()
        let keyword = try takeWord(what: "type, method or error")
        let name = try takeMemberName()
        switch keyword {
        case "type":
            let type = try parseStructureOrEnumeration()
            return .type(.init(name: name, type: type, documentation: documentation))
        case "method":
            let input = try parseStructure(what: "the method's input parameters")
            try expectSymbol("->")
            let output = try parseStructure(what: "the method's output parameters")
            return .method(.init(name: name, input: input, output: output, documentation: documentation))
        case "error":
            let parameters = try parseStructure(what: "the error's parameters")
            return .error(.init(name: name, parameters: parameters, documentation: documentation))
        default:
            throw error(.syntax, "expected type, method or error, found \"\(keyword)\"")
        }
    }

    private mutating func takeMemberName() throws(VarlinkIDLError) -> String {
        let name = try takeWord(what: "a name")
        guard VarlinkNames.isMemberName(Substring(name)) else {
            throw error(.invalidName, "\"\(name)\" is not a valid name (an uppercase letter, then letters and digits)")
        }
        return name
    }

    private mutating func parseStructure(what: String) throws(VarlinkIDLError) -> [VarlinkField] {
        let start = position
        guard case .structure(let fields) = try parseStructureOrEnumeration() else {
            throw error(.syntax, "expected \(what) as a structure, found an enumeration", at: start)
        }
        return fields
    }

    /// Parses `( … )`: a structure when the first name is followed by `:`, an enumeration otherwise.
    private mutating func parseStructureOrEnumeration() throws(VarlinkIDLError) -> VarlinkType {
        try expectSymbol("(")
        if peek() == .symbol(")") {
            _ = take()
            return .structure([])
        }
        var fields: [VarlinkField] = []
        var cases: [String] = []
        var isEnumeration: Bool?
        while true {
            let documentation = takeDocumentation()
            let name = try takeWord(what: "a field name")
            guard VarlinkNames.isFieldName(Substring(name)) else {
                throw error(.invalidName, "\"\(name)\" is not a valid field name")
            }
            if isEnumeration == nil { isEnumeration = peek() != .symbol(":") }
            if isEnumeration == true {
                cases.append(name)
            } else {
                try expectSymbol(":")
                fields.append(VarlinkField(name: name, type: try parseType(), documentation: documentation))
            }
            switch take() {
            case .symbol(","): continue
            case .symbol(")"): return isEnumeration == true ? .enumeration(cases) : .structure(fields)
            case let token: throw error(.syntax, "expected \",\" or \")\", found \(describe(token))")
            }
        }
    }

    private mutating func parseType(afterOptional: Bool = false) throws(VarlinkIDLError) -> VarlinkType {
        switch peek() {
        case .symbol("?"):
            if afterOptional { throw error(.syntax, "a type cannot be optional twice (\"??\")", at: position) }
            _ = take()
            return .optional(try parseType(afterOptional: true))
        case .symbol("[]"):
            _ = take()
            return .array(try parseType())
        case .symbol("[string]"):
            _ = take()
            return .map(try parseType())
        case .symbol("("):
            return try parseStructureOrEnumeration()
        case .word(let word):
            _ = take()
            switch word {
            case "bool": return .bool
            case "int": return .int
            case "float": return .float
            case "string": return .string
            case "object": return .object
            case "any": return .any
            default:
                guard VarlinkNames.isMemberName(Substring(word)) else {
                    throw error(.syntax, "\"\(word)\" is not a type")
                }
                return .named(word)
            }
        case let token:
            throw error(.syntax, "expected a type, found \(describe(token))", at: position)
        }
    }

    // MARK: Tokens

    private mutating func expectWord(_ word: String) throws(VarlinkIDLError) {
        let token = take()
        guard token == .word(word) else { throw error(.syntax, "expected \"\(word)\", found \(describe(token))") }
    }

    private mutating func expectSymbol(_ symbol: String) throws(VarlinkIDLError) {
        let token = take()
        guard token == .symbol(symbol) else {
            throw error(.syntax, "expected \"\(symbol)\", found \(describe(token))")
        }
    }

    private mutating func takeWord(what: String) throws(VarlinkIDLError) -> String {
        let token = take()
        guard case .word(let word) = token else { throw error(.syntax, "expected \(what), found \(describe(token))") }
        return word
    }

    /// Takes the comments between the last token and the next one, as documentation.
    private mutating func takeDocumentation() -> String {
        skipTrivia()
        defer { pendingComments = [] }
        return pendingComments.joined(separator: "\n")
    }

    private mutating func peek() -> Token {
        let saved = (position, pendingComments, lineBreakBeforeNext, tokenStart)
        let token = take()
        (position, pendingComments, lineBreakBeforeNext, tokenStart) = saved
        return token
    }

    /// Takes the next token; comments before it that ``takeDocumentation()`` did not take are dropped.
    private mutating func take() -> Token {
        skipTrivia()
        tokenStart = position
        guard position < bytes.count else { return .end }
        let byte = bytes[position]
        let token: Token
        if VarlinkNames.isLetterOrDigit(byte) {
            var end = position
            while end < bytes.count, isWordByte(at: end) { end += 1 }
            token = .word(String(decoding: bytes[position..<end], as: UTF8.self))
            position = end
        } else if hasPrefix("->") {
            token = .symbol("->")
            position += 2
        } else if hasPrefix("[]") {
            token = .symbol("[]")
            position += 2
        } else if hasPrefix("[string]") {
            token = .symbol("[string]")
            position += 8
        } else if "():,?".utf8.contains(byte) {
            token = .symbol(String(decoding: [byte], as: UTF8.self))
            position += 1
        } else {
            token = .symbol(String(decoding: [byte], as: UTF8.self))
            position += 1
        }
        lineBreakBeforeNext = false
        pendingComments = []
        return token
    }

    private func isWordByte(at index: Int) -> Bool {
        let byte = bytes[index]
        if VarlinkNames.isLetterOrDigit(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") { return true }
        if byte == UInt8(ascii: "-") { return index + 1 >= bytes.count || bytes[index + 1] != UInt8(ascii: ">") }
        return false
    }

    private func hasPrefix(_ prefix: String) -> Bool {
        let prefixBytes = Array(prefix.utf8)
        guard position + prefixBytes.count <= bytes.count else { return false }
        return Array(bytes[position..<position + prefixBytes.count]) == prefixBytes
    }

    /// Skips white space and comments, collecting comment text and noting line breaks.
    private mutating func skipTrivia() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                position += 1
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                lineBreakBeforeNext = true
                position += 1
            case UInt8(ascii: "#"):
                var end = position + 1
                while end < bytes.count, bytes[end] != UInt8(ascii: "\n"), bytes[end] != UInt8(ascii: "\r") { end += 1 }
                var comment = bytes[(position + 1)..<end]
                if comment.first == UInt8(ascii: " ") { comment = comment.dropFirst() }
                pendingComments.append(String(decoding: comment, as: UTF8.self))
                position = end
            default:
                return
            }
        }
    }

    // MARK: Errors

    private func describe(_ token: Token) -> String {
        switch token {
        case .word(let word): return "\"\(word)\""
        case .symbol(let symbol): return "\"\(symbol)\""
        case .end: return "the end of the text"
        }
    }

    private func error(_ code: VarlinkIDLError.Code, _ message: String, at offset: Int? = nil) -> VarlinkIDLError {
        location(of: code, message, at: offset ?? tokenStart)
    }

    func location(of code: VarlinkIDLError.Code, _ message: String, at offset: Int) -> VarlinkIDLError {
        var line = 1
        var lineStart = 0
        for index in 0..<min(offset, bytes.count) where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        return VarlinkIDLError(code: code, message: message, line: line, column: offset - lineStart + 1)
    }

    /// The offset where `needle` first appears as a whole word, for pointing checker errors at the source.
    func offset(ofWord needle: String) -> Int {
        let needleBytes = Array(needle.utf8)
        guard !needleBytes.isEmpty, needleBytes.count <= bytes.count else { return 0 }
        var index = 0
        while index + needleBytes.count <= bytes.count {
            if Array(bytes[index..<index + needleBytes.count]) == needleBytes {
                let before = index == 0 ? UInt8(ascii: " ") : bytes[index - 1]
                let afterIndex = index + needleBytes.count
                let after = afterIndex < bytes.count ? bytes[afterIndex] : UInt8(ascii: " ")
                if !VarlinkNames.isLetterOrDigit(before), !VarlinkNames.isLetterOrDigit(after) { return index }
            }
            index += 1
        }
        return 0
    }
}
