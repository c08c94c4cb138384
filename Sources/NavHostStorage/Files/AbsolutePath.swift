#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Paths in the one form the daemon and `navctl` compare them by: absolute, with `.`, `..` and repeated slashes
/// resolved as written (symbolic links are not followed).
///
/// A plugin folder is known by its path: the folder watcher names it from the daemon's `--plugins` directory, and
/// `navctl plugins load` from the user's current directory. Both must write the same folder the same way, or one
/// plugin is taken for two.
public enum AbsolutePath {
    /// `path` made absolute against the current directory, then ``normalized(_:)``; `nil` when `path` is relative
    /// and the current directory cannot be read.
    public static func resolving(_ path: String) -> String? {
        if path.hasPrefix("/") { return normalized(path) }
        guard let directory = getcwd(nil, 0) else { return nil }
        defer { free(directory) }
        return normalized("\(String(cString: directory))/\(path)")
    }

    /// `path` with `.` and empty components dropped and each `..` taking the component before it away; always
    /// starts with `/` and never ends with one (but `/` itself).
    public static func normalized(_ path: String) -> String {
        var components: [Substring] = []
        for component in path.split(separator: "/") {
            switch component {
            case ".": continue
            case "..": _ = components.popLast()
            default: components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }
}
