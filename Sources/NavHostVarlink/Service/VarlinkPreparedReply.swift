internal import NIOCore
public import NavHostJSON

/// A reply with `continues`, serialized once, for streams that send the same reply to many clients.
///
/// When one change goes to a thousand watchers, each ``VarlinkReplyWriter/send(_:)-(JSONObject)`` would serialize
/// the same parameters a thousand times. Prepare the reply once and send it to every writer instead:
///
/// ```swift
/// let prepared = try VarlinkPreparedReply(parameters: ["event": event.json])
/// try await replies.send(prepared)    // on each watcher's connection
/// ```
///
/// A class, so that handing it to each watcher is one reference count: as a struct, each copy of the parameters (a
/// type of the SDK, whose layout is known only at run time) went through the runtime, about 700 instructions a watcher.
public final class VarlinkPreparedReply: Sendable {
    /// The reply's output parameters.
    public let parameters: JSONObject
    /// The message as it goes on the wire, NUL terminator included.
    let message: ByteBuffer
    /// ``message`` as a channel handler writes it, wrapped once for every connection that writes it on its event loop
    /// (``Connection/StreamReplyOutput/writeImmediately(_:of:)``): wrapped by each, a wrapper was made, retained and
    /// destroyed for every watcher of a change. `NIOAny` is not `Sendable` because it may wrap any value; this one
    /// wraps `message`, a `ByteBuffer`, which is, and nothing changes it.
    nonisolated(unsafe) let outboundMessage: NIOAny

    /// Serializes a reply with `continues` and `parameters`.
    ///
    /// - Throws: ``JSONError`` when the parameters have no JSON form (a non-finite number).
    public init(parameters: JSONObject) throws(JSONError) {
        var message = ByteBuffer()
        try message.writeVarlinkReply(VarlinkReply(parameters: parameters, continues: true))
        self.parameters = parameters
        self.message = message
        self.outboundMessage = NIOAny(message)
    }
}
