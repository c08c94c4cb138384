/// SHA-256 of a session record, as lower-case hex (the same digest as the plugin files', ``SHA256``).
enum SHA256Digest {
    /// The digest of `bytes`.
    static func hex(of bytes: some Collection<UInt8>) -> String {
        SHA256.hexDigest(of: bytes)
    }
}
