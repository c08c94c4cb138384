import CGcrypt

/// SHA-256 digests through libgcrypt, as lower-case hex: what a plugin manifest's `sha256` holds and what a session
/// file's envelope checks its record with.
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

    /// The digest of `bytes`, in one call (libgcrypt's `gcry_md_hash_buffer`, with no handle to open).
    package static func hexDigest(of bytes: some Collection<UInt8>) -> String {
        Library.requireInitialized()
        var digest = [UInt8](repeating: 0, count: Library.digestLength)
        Array(bytes).withUnsafeBytes { buffer in
            gcry_md_hash_buffer(Library.algorithm, &digest, buffer.baseAddress, buffer.count)
        }
        return hex(digest)
    }
}

// MARK: - Private

extension SHA256 {
    /// libgcrypt's side: the algorithm's number, its digest's length, and the library's one-time initialisation.
    fileprivate enum Library {
        static let algorithm = Int32(GCRY_MD_SHA256.rawValue)
        static let digestLength = 32

        /// Whether libgcrypt is initialised and at least as new as the headers built against; a `static let`, so
        /// the first use initialises it once, whichever thread that is.
        private static let isInitialized = navhost_gcrypt_initialize() != 0

        static func requireInitialized() {
            precondition(isInitialized, "libgcrypt is older than \(GCRYPT_VERSION), which NavHost was built with")
        }
    }

    /// Lower-case hex of `digest`.
    fileprivate static func hex(_ digest: some Collection<UInt8>) -> String {
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

/// One running SHA-256 computation: a libgcrypt message-digest handle, closed when the context goes.
private final class DigestContext {
    private var handle: gcry_md_hd_t?

    init() {
        SHA256.Library.requireInitialized()
        let error = gcry_md_open(&handle, SHA256.Library.algorithm, 0)
        precondition(error == 0 && handle != nil, "libgcrypt cannot open a SHA-256 digest (error \(error))")
    }

    deinit {
        gcry_md_close(handle)
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        gcry_md_write(handle, base, bytes.count)
    }

    func finish() -> String {
        let digest = gcry_md_read(handle, SHA256.Library.algorithm)!
        return SHA256.hex(UnsafeBufferPointer(start: digest, count: SHA256.Library.digestLength))
    }
}
