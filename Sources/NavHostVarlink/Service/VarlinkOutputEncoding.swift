internal import NavHostJSON

/// Encodes a handler's `Encodable` output into output parameters.
///
/// - Throws: ``JSONError`` when the value does not encode to a JSON object. That is a programming error in the
///   handler; the call is answered with the generic internal error.
func encodeOutput(_ value: some Encodable) throws -> JSONObject {
    let encoded = try JSONValueEncoder().encode(value)
    guard case .object(let parameters) = encoded else {
        throw JSONError(
            code: .typeMismatch,
            message: "output parameters must encode to a JSON object, not \(encoded.typeName)"
        )
    }
    return parameters
}
