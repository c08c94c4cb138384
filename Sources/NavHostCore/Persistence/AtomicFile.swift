import Glibc

/// Writes a file so that, after a crash at any moment, it holds either the old content or the new, never a mix.
///
/// The content goes to a temporary file in the same directory, which is flushed to disk (`fsync`), renamed over the
/// target, and then the directory itself is flushed so the rename is durable too.
package enum AtomicFile {
    /// Why a write or read failed: the call and `errno`'s text.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// Replaces `path` with `bytes`, durably. Creates the parent directory (mode 0700) when missing.
    static func write(_ bytes: [UInt8], to path: String) throws(Failure) {
        let directory = parent(of: path)
        try makeDirectory(directory)
        let temporary = "\(path).tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("open \(temporary)") }
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { raw in
                Glibc.write(fd, raw.baseAddress! + written, raw.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                let error = failure("write \(temporary)")
                close(fd)
                unlink(temporary)
                throw error
            }
            written += result
        }
        guard fsync(fd) == 0 else {
            let error = failure("fsync \(temporary)")
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let error = failure("rename \(temporary)")
            unlink(temporary)
            throw error
        }
        try syncDirectory(directory)
    }

    /// The content of `path`, or `nil` when there is no such file.
    static func read(_ path: String) throws(Failure) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw failure("open \(path)")
        }
        defer { close(fd) }
        var content: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("read \(path)")
            }
            if count == 0 { return content }
            content += chunk[..<count]
        }
    }

    /// Moves `path` aside to `path.<suffix>` (or `path.<suffix>-1`, `-2`, … when that is taken), keeping it for a
    /// person to look at. It never replaces a file moved aside earlier, even one moved in the same second: the new
    /// name is made with `link`, which fails on an existing name, and only then is `path` removed.
    package static func moveAside(_ path: String, suffix: String) throws(Failure) -> String {
        var attempt = 0
        while true {
            let destination = attempt == 0 ? "\(path).\(suffix)" : "\(path).\(suffix)-\(attempt)"
            if link(path, destination) == 0 {
                guard unlink(path) == 0 else { throw failure("unlink \(path)") }
                try syncDirectory(parent(of: path))
                return destination
            }
            guard errno == EEXIST else { throw failure("link \(path) to \(destination)") }
            attempt += 1
        }
    }

    /// Creates `path` and its missing parents with mode 0700.
    static func makeDirectory(_ path: String) throws(Failure) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/\(component)"
            if mkdir(current, 0o700) != 0, errno != EEXIST { throw failure("mkdir \(current)") }
        }
    }

    private static func syncDirectory(_ path: String) throws(Failure) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open \(path)") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw failure("fsync \(path)") }
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func failure(_ call: String) -> Failure {
        Failure(description: "\(call): \(String(cString: strerror(errno)))")
    }
}
