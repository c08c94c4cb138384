/// SHA-256 of a session record, as lower-case hex (the same digest as the plugin files', ``SHA256``).
enum SHA256Digest {
    /// The digest of `bytes`.
    static func hex(of bytes: some Collection<UInt8>) -> String {
        SHA256.hexDigest(of: bytes)
    }

    /// Appends the digest of `bytes`, as 64 hex digits, to `text`.
    static func appendHex(of bytes: UnsafeRawBufferPointer, to text: inout [UInt8]) {
        SHA256.appendHexDigest(of: bytes, to: &text)
    }
}
