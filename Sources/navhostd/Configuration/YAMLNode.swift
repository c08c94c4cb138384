import CYAML

/// One node of a YAML document as libyaml composed it, with where it starts in the text.
///
/// libyaml does the parsing (`yaml_parser_load`: scanning, anchors and aliases, flow and block styles); this type only
/// copies its document into Swift values, and reads a plain scalar's type the way YAML 1.2's core schema does:
/// `null`, `~` and nothing are null, `true` and `false` are booleans, `12`, `0o14` and `0xC` are integers. A quoted
/// scalar is always text.
indirect enum YAMLNode: Sendable {
    /// Where a node starts: line and column, from 1.
    struct Mark: Sendable, Equatable {
        var line: Int
        var column: Int
    }

    case scalar(String, isPlain: Bool, Mark)
    case sequence([YAMLNode], Mark)
    case mapping([(key: YAMLNode, value: YAMLNode)], Mark)

    /// Why a text is not YAML: libyaml's words and where it stopped.
    struct SyntaxError: Error, Sendable {
        var problem: String
        var mark: Mark
    }

    /// The first document of `text`; `nil` when it has none (an empty file, or comments only).
    ///
    /// - Throws: ``SyntaxError`` when libyaml refuses the text, or when it holds more than one document or nests
    ///   deeper than 64 levels.
    static func load(_ text: String) throws(SyntaxError) -> YAMLNode? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw SyntaxError(problem: "libyaml could not start", mark: Mark(line: 1, column: 1))
        }
        defer { yaml_parser_delete(&parser) }
        // libyaml asserts a non-NULL input, which an empty array's buffer need not have.
        let bytes = Array(text.utf8) + [0]
        return try bytes.dropLast().withUnsafeBufferPointer { buffer throws(SyntaxError) -> YAMLNode? in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var document = yaml_document_t()
            guard yaml_parser_load(&parser, &document) == 1 else { throw SyntaxError(parser) }
            defer { yaml_document_delete(&document) }
            guard let root = yaml_document_get_root_node(&document) else { return nil }
            var budget = maxNodes
            let node = try convert(root, in: &document, depth: 0, budget: &budget)
            var next = yaml_document_t()
            guard yaml_parser_load(&parser, &next) == 1 else { throw SyntaxError(parser) }
            defer { yaml_document_delete(&next) }
            if yaml_document_get_root_node(&next) != nil {
                throw SyntaxError(
                    problem: "holds more than one document (---); write one",
                    mark: Mark(next.start_mark)
                )
            }
            return node
        }
    }

    // MARK: Reading values

    /// Where the node starts.
    var mark: Mark {
        switch self {
        case .scalar(_, _, let mark), .sequence(_, let mark), .mapping(_, let mark): mark
        }
    }

    /// The scalar's text, plain or quoted.
    var text: String? {
        if case .scalar(let text, _, _) = self { return text }
        return nil
    }

    /// Whether the node is a plain `null`, `Null`, `NULL`, `~` or nothing.
    var isNull: Bool {
        guard case .scalar(let text, true, _) = self else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(text)
    }

    /// A plain `true` or `false` (also `True`, `TRUE`, `False`, `FALSE`).
    var bool: Bool? {
        guard case .scalar(let text, true, _) = self else { return nil }
        switch text {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: return nil
        }
    }

    /// A plain integer: decimal with an optional sign, `0o` octal or `0x` hexadecimal.
    var int: Int? {
        guard case .scalar(let text, true, _) = self else { return nil }
        if text.hasPrefix("0o") { return Int(text.dropFirst(2), radix: 8) }
        if text.hasPrefix("0x") { return Int(text.dropFirst(2), radix: 16) }
        let digits = text.hasPrefix("-") || text.hasPrefix("+") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int(text)
    }

    /// A plain number with a fraction or an exponent (integers are ``int``).
    var double: Double? {
        guard case .scalar(let text, true, _) = self, int == nil else { return nil }
        guard text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") }),
            let first = text.utf8.first,
            first == UInt8(ascii: "-") || first == UInt8(ascii: "+") || first == UInt8(ascii: ".")
                || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9"))
        else { return nil }
        return Double(text)
    }

    /// What kind of node it is, for messages.
    var kind: String {
        switch self {
        case .scalar: "a value"
        case .sequence: "a list"
        case .mapping: "a mapping"
        }
    }

    // MARK: Private

    /// The most nodes a document may expand to. Aliases share nodes in libyaml's document but are copied here, so a
    /// few hundred bytes of anchors that each refer to the one before twice would otherwise expand to billions.
    private static let maxNodes = 100_000

    private static func convert(
        _ node: UnsafeMutablePointer<yaml_node_t>,
        in document: inout yaml_document_t,
        depth: Int,
        budget: inout Int
    ) throws(SyntaxError) -> YAMLNode {
        let mark = Mark(node.pointee.start_mark)
        guard depth < 64 else {
            throw SyntaxError(problem: "nests deeper than 64 levels (or an alias refers to itself)", mark: mark)
        }
        budget -= 1
        guard budget >= 0 else {
            throw SyntaxError(problem: "expands to more than \(maxNodes) values (aliases of aliases?)", mark: mark)
        }
        switch node.pointee.type {
        case YAML_SCALAR_NODE:
            let scalar = node.pointee.data.scalar
            let text = String(
                decoding: UnsafeBufferPointer(start: scalar.value, count: Int(scalar.length)),
                as: UTF8.self
            )
            return .scalar(text, isPlain: scalar.style == YAML_PLAIN_SCALAR_STYLE, mark)
        case YAML_SEQUENCE_NODE:
            var items: [YAMLNode] = []
            var item = node.pointee.data.sequence.items.start
            while let current = item, current != node.pointee.data.sequence.items.top {
                if let child = yaml_document_get_node(&document, current.pointee) {
                    items.append(try convert(child, in: &document, depth: depth + 1, budget: &budget))
                }
                item = current + 1
            }
            return .sequence(items, mark)
        case YAML_MAPPING_NODE:
            var pairs: [(key: YAMLNode, value: YAMLNode)] = []
            var pair = node.pointee.data.mapping.pairs.start
            while let current = pair, current != node.pointee.data.mapping.pairs.top {
                if let key = yaml_document_get_node(&document, current.pointee.key),
                    let value = yaml_document_get_node(&document, current.pointee.value)
                {
                    pairs.append(
                        (
                            try convert(key, in: &document, depth: depth + 1, budget: &budget),
                            try convert(value, in: &document, depth: depth + 1, budget: &budget)
                        )
                    )
                }
                pair = current + 1
            }
            return .mapping(pairs, mark)
        default:
            return .scalar("", isPlain: true, mark)
        }
    }
}

extension YAMLNode.Mark {
    /// A libyaml mark (from 0) as a line and column from 1.
    fileprivate init(_ mark: yaml_mark_t) {
        self.init(line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }
}

extension YAMLNode.SyntaxError {
    /// The parser's problem, with its context when it has one.
    fileprivate init(_ parser: yaml_parser_t) {
        let problem = parser.problem.map { String(cString: $0) } ?? "not YAML"
        let context = parser.context.map { " \(String(cString: $0))" } ?? ""
        if parser.error == YAML_READER_ERROR {
            // The reader (bad UTF-8, control characters) reports a byte offset, not a line.
            self.init(
                problem: "\(problem) at byte \(parser.problem_offset)",
                mark: YAMLNode.Mark(line: 1, column: 1)
            )
        } else {
            self.init(problem: problem + context, mark: YAMLNode.Mark(parser.problem_mark))
        }
    }
}
