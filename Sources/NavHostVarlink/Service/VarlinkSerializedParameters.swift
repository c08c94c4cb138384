public import NavHostJSON

/// A reply's output parameters, written as JSON text already.
///
/// A handler that answers many calls with parameters made mostly of the same parts can keep those parts serialized and
/// put the text together, instead of building a ``JSONObject`` the server serializes again on every call. Set such a
/// handler with ``VarlinkInterfaceImplementation/handleSerialized(_:_:)``.
///
/// The server writes the text as it is: it must be one JSON object, compact, as
/// ``JSONValue/appendSerializedBytes(to:)`` writes one, so that the reply reads exactly as if the object had been
/// returned.
public struct VarlinkSerializedParameters: Sendable, Hashable {
    /// The object's JSON text.
    public let text: [UInt8]

    /// Parameters whose JSON text is `text`: an object written by ``JSONValue/appendSerializedBytes(to:)``, or put
    /// together from parts it wrote.
    public init(text: [UInt8]) {
        self.text = text
    }

    /// The parameters of `object`, serialized.
    ///
    /// - Throws: ``JSONError`` when a member has no JSON form (a non-finite number).
    public init(_ object: JSONObject) throws(JSONError) {
        var text: [UInt8] = []
        try JSONValue.object(object).appendSerializedBytes(to: &text)
        self.text = text
    }
}
