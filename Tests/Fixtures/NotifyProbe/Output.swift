import Glibc

/// Writes to standard output without buffering, so a test reading the pipe sees each line at once.
enum Output {
    static func line(_ text: String) {
        let bytes = Array("\(text)\n".utf8)
        _ = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    }
}
