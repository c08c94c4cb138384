import COpenSSL

/// SHA-256 digests through libcrypto (`SHA256_Init`/`Update`/`Final`; see the COpenSSL shim for why not EVP), as
/// lower-case hex: what a plugin manifest's `sha256` holds.
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

/// One running SHA-256 computation.
private final class DigestContext {
    private var context = SHA256_CTX()

    init() {
        SHA256_Init(&context)
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        SHA256_Update(&context, base, bytes.count)
    }

    func finish() -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        SHA256_Final(&digest, &context)
        let hexDigits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(digest.count * 2)
        for byte in digest {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
