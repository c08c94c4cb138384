public import NavHostJSON

/// A Varlink reply: the message a service sends back for a call that is not `oneway`.
///
/// On the wire a reply is one JSON object, either a success (`{"parameters":{…},"continues":true}`) or an error
/// (`{"error":"org.example.ftl.NotEnoughEnergy","parameters":{…}}`). `continues` marks a reply that more replies to
/// the same call follow; it is only valid when the call set `more`, and never on an error.
public struct VarlinkReply: Sendable, Hashable {
    /// The output parameters, or the error's parameters; empty when the reply carried none.
    public var parameters: JSONObject
    /// Whether more replies to the same call follow.
    public var continues: Bool
    /// The fully qualified error name when the call failed, otherwise `nil`.
    public var error: String?

    /// Creates a successful reply.
    ///
    /// - Parameters:
    ///   - parameters: The output parameters.
    ///   - continues: Whether more replies follow.
    public init(parameters: JSONObject = [:], continues: Bool = false) {
        self.parameters = parameters
        self.continues = continues
        self.error = nil
    }

    /// Creates an error reply.
    public init(error: VarlinkError) {
        self.parameters = error.parameters
        self.continues = false
        self.error = error.name
    }

    /// The error this reply carries, or `nil` for a successful reply.
    public var varlinkError: VarlinkError? {
        error.map { VarlinkError(name: $0, parameters: parameters) }
    }
}

// MARK: - Reading

extension VarlinkReply {
    /// Reads a reply from a parsed message, following the same rules as ``VarlinkCall/init(parsing:)``: members
    /// other than `parameters`, `continues` and `error` must be vendor extensions (they contain a dot) and are
    /// ignored; `continues` on an error reply is a violation.
    ///
    /// - Throws: ``VarlinkProtocolError`` when the message is not a well-formed reply.
    public init(parsing message: JSONValue) throws(VarlinkProtocolError) {
        guard case .object(let members) = message else {
            throw VarlinkProtocolError(
                code: .notAnObject,
                message: "a reply must be a JSON object, not \(message.typeName)"
            )
        }
        var reply = VarlinkReply()
        for (key, value) in members {
            switch key {
            case "parameters":
                reply.parameters = try VarlinkCall.readParameters(value)
            case "continues":
                reply.continues = try VarlinkCall.readFlag(value, named: key)
            case "error":
                switch value {
                case .null: break
                case .string(let name): reply.error = name
                default:
                    throw VarlinkProtocolError(
                        code: .invalidHeaderField,
                        message: "\"error\" must be a string, not \(value.typeName)"
                    )
                }
            default:
                guard key.contains(".") else {
                    throw VarlinkProtocolError(
                        code: .unknownHeaderField,
                        message: "unknown reply member \"\(key)\" (vendor extensions must contain a dot)"
                    )
                }
            }
        }
        if reply.error != nil, reply.continues {
            throw VarlinkProtocolError(code: .invalidHeaderField, message: "an error reply must not set \"continues\"")
        }
        self = reply
    }
}

// MARK: - Writing

extension VarlinkReply {
    /// The reply as a JSON object, compact: `parameters` only when there are some, `continues` only when `true`.
    public var jsonValue: JSONValue {
        var members: JSONObject = [:]
        if let error { members["error"] = .string(error) }
        if !parameters.isEmpty { members["parameters"] = .object(parameters) }
        if continues { members["continues"] = true }
        return .object(members)
    }
}
