import COpenSSL

/// SHA-256 through OpenSSL's libcrypto, as lower-case hex.
enum SHA256Digest {
    /// The digest of `bytes`.
    static func hex(of bytes: some Collection<UInt8>) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let contiguous = Array(bytes)
        let ok = contiguous.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha256(), nil)
        }
        precondition(ok == 1, "EVP_Digest failed")
        return digest.prefix(Int(length)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
