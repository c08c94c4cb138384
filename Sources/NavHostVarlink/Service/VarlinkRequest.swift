public import Logging
public import NavHostJSON

/// A call as a method handler sees it: the message, who sent it, and a logger for it.
///
/// The parameters have been checked against the method's declaration in the interface before the handler runs, so
/// a handler can rely on every declared, non-optional parameter being present with the declared type.
public struct VarlinkRequest: Sendable {
    /// The call message.
    public var call: VarlinkCall
    /// The peer's credentials; `nil` when the transport has none (a connection that is not an `AF_UNIX` socket).
    public var peer: VarlinkPeerCredentials?
    /// A logger whose metadata names the connection, the peer and the method.
    public var logger: Logger {
        get {
            callNumber.map { Self.logger(connectionLogger, method: call.method, callNumber: $0) } ?? connectionLogger
        }
        set {
            connectionLogger = newValue
            callNumber = nil
        }
    }

    private var connectionLogger: Logger
    /// The call's number on its connection, when ``logger`` adds the call's metadata itself.
    private var callNumber: Int?
    /// Whether the connection logged the call's start at `trace` level, and so logs its end: the level is looked at
    /// once per call, not again at its end.
    var isTraced = false

    /// Creates a request; the server makes these, tests may too.
    public init(call: VarlinkCall, peer: VarlinkPeerCredentials?, logger: Logger) {
        self.call = call
        self.peer = peer
        self.connectionLogger = logger
    }

    /// Creates a request whose ``logger`` is `connectionLogger` with the call's metadata (`varlink.method`,
    /// `varlink.call.id`), added only when a handler asks for it: most calls never log, and the metadata costs a
    /// copy of the logger's dictionary.
    init(call: VarlinkCall, peer: VarlinkPeerCredentials?, connectionLogger: Logger, callNumber: Int) {
        self.call = call
        self.peer = peer
        self.connectionLogger = connectionLogger
        self.callNumber = callNumber
    }

    /// `logger` with the metadata of call `callNumber`, which calls `method`.
    static func logger(_ logger: Logger, method: String, callNumber: Int) -> Logger {
        var logger = logger
        logger[metadataKey: "varlink.method"] = .string(method)
        logger[metadataKey: "varlink.call.id"] = .string(String(callNumber))
        return logger
    }

    /// The call's input parameters; for a call read straight from json-c, made anew at each read
    /// (``VarlinkCall/parameters``).
    public var parameters: JSONObject { call.parameters }

    /// `body`'s result for a reader of the call's input parameters by name, which reads them where the call keeps
    /// them (``VarlinkCall/withParameterReader(_:)``).
    package func withParameterReader<Result>(_ body: (VarlinkParameterReader) throws -> Result) rethrows -> Result {
        try call.withParameterReader(body)
    }

    /// Decodes the input parameters into a `Decodable` type.
    ///
    /// - Throws: `org.varlink.service.InvalidParameter` naming the member that does not decode.
    public func decodeParameters<Parameters: Decodable>(as type: Parameters.Type) throws(VarlinkError) -> Parameters {
        do {
            return try JSONValueDecoder().decode(type, from: .object(call.parameters))
        } catch let error as JSONError {
            throw VarlinkError.invalidParameter(error.path ?? "")
        } catch {
            throw VarlinkError.invalidParameter("")
        }
    }
}
