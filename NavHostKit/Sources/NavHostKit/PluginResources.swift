import Glibc

/// The files a plugin ships beside its library (the `resources` its manifest lists), read by name.
///
/// A data source takes one through its `init`, from ``HostServices/resources``; a test passes a folder of its own or a
/// double. Reading needs no Foundation: Foundation's `Data(contentsOf:)` brings about 1 MB of its library's pages into
/// the daemon's memory for the first small file it reads.
///
/// - Since: NavHostKit 2.2.0.
public protocol PluginResources: Sendable {
    /// The whole content of the resource `name`, its path as the manifest lists it (`products.json`,
    /// `data/rates.json`), read afresh: a file replaced while the daemon runs is read anew.
    ///
    /// - Throws: ``ResourceError`` when `name` is not a relative path inside the plugin's folder (absolute, empty, or
    ///   with a `.` or `..` component), or the file is missing or cannot be read.
    func contents(of name: String) throws(ResourceError) -> [UInt8]
}

/// Why a resource could not be read.
///
/// - Since: NavHostKit 2.2.0.
public struct ResourceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The resource's name, as it was asked for.
    public var name: String
    /// What went wrong, for a person, like `No such file or directory`.
    public var reason: String
    /// Whether no file has that name (rather than one that cannot be read).
    public var isMissing: Bool

    /// Creates the error for the resource `name`.
    public init(name: String, reason: String, isMissing: Bool = false) {
        self.name = name
        self.reason = reason
        self.isMissing = isMissing
    }

    public var description: String { "cannot read the resource \"\(name)\": \(reason)" }
}

/// The resources in a folder: the one the daemon gives a plugin (``HostServices/resourceDirectory``), or a test's.
///
/// - Since: NavHostKit 2.2.0.
public struct ResourceFolder: PluginResources {
    /// The folder's path.
    public var path: String

    /// The resources in the folder at `path`.
    public init(path: String) {
        self.path = path
    }

    public func contents(of name: String) throws(ResourceError) -> [UInt8] {
        let components = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !name.hasPrefix("/"), components.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else {
            throw ResourceError(name: name, reason: "a resource is named by its path inside the plugin's folder")
        }
        let file = path.hasSuffix("/") ? path + name : "\(path)/\(name)"
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Self.error(name, errno) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw Self.error(name, errno)
            }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    private static func error(_ name: String, _ code: Int32) -> ResourceError {
        ResourceError(name: name, reason: String(cString: strerror(code)), isMissing: code == ENOENT)
    }
}

extension HostServices {
    /// The plugin's resources, read from ``resourceDirectory``.
    ///
    /// - Since: NavHostKit 2.2.0.
    public var resources: any PluginResources { ResourceFolder(path: resourceDirectory) }
}
