import Glibc

/// A file operation that failed: what was tried, on which path, and the system's reason.
///
/// `code` says what kind of failure it was; new codes may be added, so switch over it with a `default`.
public struct FileAccessError: Error, Sendable, Hashable {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case notFound
            case permissionDenied
            case notADirectory
            case io
            case tooLarge
            case tooDeep
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The path, or a folder on it, does not exist.
        public static let notFound = Code(.notFound)
        /// The process may not read or write the path.
        public static let permissionDenied = Code(.permissionDenied)
        /// A folder was expected and something else is there.
        public static let notADirectory = Code(.notADirectory)
        /// Any other failure of the system call; `errno` tells which.
        public static let io = Code(.io)
        /// The file would be larger than the daemon reads back (``FileIO/largestFile``): nothing was written. Or, read,
        /// it is larger than the reader takes.
        public static let tooLarge = Code(.tooLarge)
        /// The file's JSON would nest deeper than the daemon reads back (``JSONNesting/deepest``): nothing was
        /// written.
        public static let tooDeep = Code(.tooDeep)

        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// What failed, for a person.
    public var message: String
    /// The path the operation was about.
    public var path: String
    /// The system's error number, when a system call failed.
    public var errno: Int32?
    /// Whether the path may hold the new file all the same: a replacement renamed into place whose folder could not
    /// be flushed (`fsync`). A crash leaves either file there. `false`: the path holds what it held before.
    public var mayHaveReplaced = false

    /// Creates an error of kind `code` about `path`.
    public init(code: Code, message: String, path: String, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.errno = errno
    }
}

// MARK: - Factories

extension FileAccessError {
    /// The error for system call `operation` on `path` that failed with `number`.
    package static func system(_ operation: String, path: String, errno number: Int32) -> Self {
        let code: Code
        switch number {
        case ENOENT: code = .notFound
        case EACCES, EPERM: code = .permissionDenied
        case ENOTDIR: code = .notADirectory
        default: code = .io
        }
        return Self(
            code: code,
            message: "\(operation) failed: \(String(cString: strerror(number)))",
            path: path,
            errno: number
        )
    }
}

// MARK: - CustomStringConvertible

extension FileAccessError: CustomStringConvertible {
    public var description: String { "\(path): \(message)" }
}
