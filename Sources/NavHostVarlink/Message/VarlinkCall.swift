public import NavHostJSON

/// A Varlink method call: the message a client sends.
///
/// On the wire a call is one JSON object:
///
/// ```json
/// {"method":"org.example.ftl.Jump","parameters":{"configuration":{…}},"more":true}
/// ```
///
/// ``init(parsing:)`` reads a call the way the UAPI Varlink specification (`varlink.md`) asks a service to, and
/// throws a ``VarlinkProtocolError`` for every message that has no well-defined reply. The connection that carried
/// such a message is closed. The rules:
///
/// - The message must be a JSON object. → ``VarlinkProtocolError/Code/notAnObject``
/// - `method` must be present → ``VarlinkProtocolError/Code/missingMethod``; and be a string →
///   ``VarlinkProtocolError/Code/invalidHeaderField``.
/// - `parameters` may be absent, `null` or an object; all three empty forms mean "no parameters". Anything else →
///   ``VarlinkProtocolError/Code/invalidHeaderField``.
/// - `oneway`, `more` and `upgrade` may be absent, `null` (both read as `false`) or a boolean. Anything else →
///   ``VarlinkProtocolError/Code/invalidHeaderField``. At most one of them may be `true` →
///   ``VarlinkProtocolError/Code/conflictingFlags``.
/// - A member whose name contains a dot is a vendor extension (`"org.example": {…}`) and is ignored. Any other
///   member → ``VarlinkProtocolError/Code/unknownHeaderField``.
///
/// A `method` string that is not of the form `interface.Method` is *not* a protocol error: the service answers it
/// with `org.varlink.service.InterfaceNotFound` or `MethodNotFound`, like any other call it cannot route.
public struct VarlinkCall: Sendable, Hashable {
    /// The fully qualified method name, like `org.example.ftl.Jump`.
    public var method: String {
        get { storage.method }
        set { storage = storage.with(method: newValue) }
    }
    /// The input parameters; empty when the call carried none.
    ///
    /// A call read straight from json-c keeps its parameters there (``VarlinkParameterTree``) and makes this object
    /// anew at each read: the busy calls' handlers read members by name instead (``withParameterReader(_:)``).
    public var parameters: JSONObject {
        get { storage.tree?.jsonObject() ?? storage.parameters }
        set { storage = storage.with(parameters: newValue) }
    }
    /// Whether the client asks for possibly several replies, all but the last with `continues`.
    public var more: Bool {
        get { storage.more }
        set { storage = storage.with(more: newValue) }
    }
    /// Whether the client asks for no reply at all.
    public var oneway: Bool {
        get { storage.oneway }
        set { storage = storage.with(oneway: newValue) }
    }
    /// Whether the client asks to take the connection over for another protocol after the reply.
    public var upgrade: Bool {
        get { storage.upgrade }
        set { storage = storage.with(upgrade: newValue) }
    }

    /// The members, shared by every copy. A call is handed from the connection to its task, its request and its reply
    /// writer: a copy of the members themselves would copy the parameters through the value witnesses of the SDK's
    /// `JSONObject`, whose layout this module does not know (about 3,000 instructions per call, callgrind).
    private var storage: Storage

    /// Creates a call.
    ///
    /// - Parameters:
    ///   - method: The fully qualified method name.
    ///   - parameters: The input parameters.
    ///   - more: Ask for several replies.
    ///   - oneway: Ask for no reply.
    ///   - upgrade: Ask for a protocol upgrade.
    public init(
        method: String,
        parameters: JSONObject = [:],
        more: Bool = false,
        oneway: Bool = false,
        upgrade: Bool = false
    ) {
        storage = Storage(method: method, parameters: parameters, more: more, oneway: oneway, upgrade: upgrade)
    }

    /// A call whose parameters stay as json-c parsed them (``VarlinkCallReader``).
    init(method: String, parameterTree: VarlinkParameterTree, more: Bool, oneway: Bool, upgrade: Bool) {
        storage = Storage(method: method, tree: parameterTree, more: more, oneway: oneway, upgrade: upgrade)
    }

    public static func == (lhs: VarlinkCall, rhs: VarlinkCall) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.method == rhs.method && lhs.parameters == rhs.parameters && lhs.more == rhs.more
                && lhs.oneway == rhs.oneway && lhs.upgrade == rhs.upgrade)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(parameters)
        hasher.combine(more)
        hasher.combine(oneway)
        hasher.combine(upgrade)
    }

    /// The interface part of ``method``: everything before the last dot (empty when there is no dot).
    public var interfaceName: String {
        guard let dot = lastDot else { return "" }
        return String(method[..<dot])
    }

    /// The member part of ``method``: everything after the last dot.
    public var memberName: String {
        guard let dot = lastDot else { return method }
        return String(method[method.utf8.index(after: dot)...])
    }

    /// `body`'s result for ``parameters``, lent where the call keeps them.
    ///
    /// The getter hands out a copy, and a copy of the SDK's `JSONObject`, whose layout this module does not know, goes
    /// through the runtime's witnesses, as does its destroy after. A call read straight from json-c keeps no
    /// `JSONObject`: this makes one, as the getter does; read its members with ``withParameterReader(_:)`` instead.
    package func withParameters<Result>(_ body: (JSONObject) throws -> Result) rethrows -> Result {
        if let tree = storage.tree { return try body(tree.jsonObject()) }
        return try body(storage.parameters)
    }

    /// `body`'s result for a reader of the parameters' members by name, from json-c's parse when the call was read
    /// from it (no ``JSONObject`` is made of them), else from ``parameters``.
    package func withParameterReader<Result>(_ body: (VarlinkParameterReader) throws -> Result) rethrows -> Result {
        if let tree = storage.tree { return try body(VarlinkParameterReader(tree: tree)) }
        return try body(VarlinkParameterReader(members: storage.parameters))
    }

    /// The parameters as json-c parsed them, when the call was read from that parse.
    var parameterTree: VarlinkParameterTree? { storage.tree }

    /// Where the last dot of ``method`` is, found in its UTF-8 bytes: every call is routed by it, and a search by
    /// `Character` would break the whole name into grapheme clusters first.
    private var lastDot: String.Index? {
        method.utf8.lastIndex(of: UInt8(ascii: "."))
    }
}

// MARK: - Storage

extension VarlinkCall {
    /// A call's members; a setter of the call replaces them, so no copy sees another's change.
    private final class Storage: Sendable {
        let method: String
        /// The parameters, when ``tree`` is `nil`; empty otherwise.
        let parameters: JSONObject
        /// The parameters as json-c parsed them, for a call read from that parse.
        let tree: VarlinkParameterTree?
        let more: Bool
        let oneway: Bool
        let upgrade: Bool

        init(method: String, parameters: JSONObject, more: Bool, oneway: Bool, upgrade: Bool) {
            self.method = method
            self.parameters = parameters
            self.tree = nil
            self.more = more
            self.oneway = oneway
            self.upgrade = upgrade
        }

        init(method: String, tree: VarlinkParameterTree?, more: Bool, oneway: Bool, upgrade: Bool) {
            self.method = method
            self.parameters = JSONObject()
            self.tree = tree
            self.more = more
            self.oneway = oneway
            self.upgrade = upgrade
        }

        /// These members with the ones given replaced.
        func with(
            method: String? = nil,
            parameters: JSONObject? = nil,
            more: Bool? = nil,
            oneway: Bool? = nil,
            upgrade: Bool? = nil
        ) -> Storage {
            // New parameters replace the tree; any other change keeps it.
            if parameters == nil, let tree {
                return Storage(
                    method: method ?? self.method,
                    tree: tree,
                    more: more ?? self.more,
                    oneway: oneway ?? self.oneway,
                    upgrade: upgrade ?? self.upgrade
                )
            }
            return Storage(
                method: method ?? self.method,
                parameters: parameters ?? self.parameters,
                more: more ?? self.more,
                oneway: oneway ?? self.oneway,
                upgrade: upgrade ?? self.upgrade
            )
        }
    }
}

// MARK: - Reading

extension VarlinkCall {
    /// Reads a call from a parsed message.
    ///
    /// - Parameter message: The message, as the JSON layer parsed it.
    /// - Throws: ``VarlinkProtocolError`` when the message is not a well-formed call (see the type's rules).
    public init(parsing message: JSONValue) throws(VarlinkProtocolError) {
        guard case .object(let members) = message else {
            throw VarlinkProtocolError(
                code: .notAnObject,
                message: "a call must be a JSON object, not \(message.typeName)"
            )
        }
        var method: String?
        var parameters = JSONObject()
        var flags = (more: false, oneway: false, upgrade: false)
        // The two arrays, not the object's `Collection` conformance: through that, each member of the SDK's resilient
        // type costs witness calls and copies. Every call a client sends is read here.
        let keys = members.keys
        let values = members.values
        for index in keys.indices {
            let key = keys[index]
            let value = values[index]
            switch key {
            case "method":
                guard case .string(let name) = value else {
                    throw VarlinkProtocolError(
                        code: .invalidHeaderField,
                        message: "\"method\" must be a string, not \(value.typeName)"
                    )
                }
                method = name
            case "parameters":
                parameters = try Self.readParameters(value)
            case "more":
                flags.more = try Self.readFlag(value, named: key)
            case "oneway":
                flags.oneway = try Self.readFlag(value, named: key)
            case "upgrade":
                flags.upgrade = try Self.readFlag(value, named: key)
            default:
                guard key.contains(".") else {
                    throw VarlinkProtocolError(
                        code: .unknownHeaderField,
                        message: "unknown call member \"\(key)\" (vendor extensions must contain a dot)"
                    )
                }
            }
        }
        guard let method else {
            throw VarlinkProtocolError(code: .missingMethod, message: "a call must have a \"method\" member")
        }
        if (flags.more ? 1 : 0) + (flags.oneway ? 1 : 0) + (flags.upgrade ? 1 : 0) > 1 {
            throw VarlinkProtocolError(
                code: .conflictingFlags,
                message: "at most one of \"more\", \"oneway\" and \"upgrade\" may be true"
            )
        }
        self.init(
            method: method,
            parameters: parameters,
            more: flags.more,
            oneway: flags.oneway,
            upgrade: flags.upgrade
        )
    }

    static func readFlag(_ value: JSONValue, named name: String) throws(VarlinkProtocolError) -> Bool {
        switch value {
        case .null: return false
        case .bool(let flag): return flag
        default:
            throw VarlinkProtocolError(
                code: .invalidHeaderField,
                message: "\"\(name)\" must be a boolean, not \(value.typeName)"
            )
        }
    }

    static func readParameters(_ value: JSONValue) throws(VarlinkProtocolError) -> JSONObject {
        switch value {
        case .null: return [:]
        case .object(let members): return members
        default:
            throw VarlinkProtocolError(
                code: .invalidHeaderField,
                message: "\"parameters\" must be an object, not \(value.typeName)"
            )
        }
    }
}

// MARK: - Writing

extension VarlinkCall {
    /// The call as a JSON object, in the compact form senders should use: `parameters` only when there are some,
    /// flags only when they are `true`.
    public var jsonValue: JSONValue {
        var members: JSONObject = ["method": .string(method)]
        if !parameters.isEmpty { members["parameters"] = .object(parameters) }
        if more { members["more"] = true }
        if oneway { members["oneway"] = true }
        if upgrade { members["upgrade"] = true }
        return .object(members)
    }
}
