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
        var text: [UInt8] = []
        Array(bytes).withUnsafeBytes { appendHexDigest(of: $0, to: &text) }
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends the digest of `bytes`, 64 lower-case hex digits, to `text`: no copy of the bytes, no string.
    package static func appendHexDigest(of bytes: UnsafeRawBufferPointer, to text: inout [UInt8]) {
        Library.requireInitialized()
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Library.digestLength) { digest in
            gcry_md_hash_buffer(Library.algorithm, digest.baseAddress, bytes.baseAddress, bytes.count)
            appendHex(UnsafeBufferPointer(digest), to: &text)
        }
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

    /// Appends the lower-case hex of `digest` to `text`.
    fileprivate static func appendHex(_ digest: UnsafeBufferPointer<UInt8>, to text: inout [UInt8]) {
        text.reserveCapacity(text.count + digest.count * 2)
        for byte in digest {
            text.append(hexDigit(byte >> 4))
            text.append(hexDigit(byte & 0x0f))
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
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
        var text: [UInt8] = []
        SHA256.appendHex(UnsafeBufferPointer(start: digest, count: SHA256.Library.digestLength), to: &text)
        return String(decoding: text, as: UTF8.self)
    }
}
