import COpenSSL

/// SHA-256 digests through libcrypto's EVP interface, as lower-case hex: what a plugin manifest's `sha256` holds.
package enum SHA256 {
    /// The digest of the file at `path`, read in chunks so that a large library is never held in memory.
    package static func hexDigest(ofFileAt path: String) throws(FileAccessError) -> String {
        let context = DigestContext()
        try FileIO.forEachChunk(of: path) { (chunk: UnsafeRawBufferPointer) throws(FileAccessError) in
            context.update(chunk)
            return true
        }
        return context.finish()
    }

    /// The digest of `bytes`.
    package static func hexDigest(of bytes: some Collection<UInt8>) -> String {
        let context = DigestContext()
        Array(bytes).withUnsafeBytes { context.update($0) }
        return context.finish()
    }
}

// MARK: - Private

/// One running SHA-256 computation; owns its `EVP_MD_CTX`.
private final class DigestContext {
    private let context: OpaquePointer

    init() {
        // Both calls fail only when memory runs out.
        guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new failed: out of memory") }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else { fatalError("EVP_DigestInit_ex(sha256) failed") }
        self.context = context
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        guard EVP_DigestUpdate(context, base, bytes.count) == 1 else { fatalError("EVP_DigestUpdate failed") }
    }

    func finish() -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1 else { fatalError("EVP_DigestFinal_ex failed") }
        let hexDigits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(Int(length) * 2)
        for byte in digest.prefix(Int(length)) {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
