import Glibc
import NavHostStorage

/// Telling plugin folders apart as the daemon names them, and when one changed.
enum PluginFolderPath {
    /// Whether `other`, a folder the daemon names, is `folder` (symbolic links resolved; for a folder that is gone,
    /// those of its parent).
    static func isSame(_ other: String?, as folder: String) -> Bool {
        guard let other else { return false }
        return other == folder || resolved(other) == resolved(folder)
    }

    /// When the status of what is at `path` last changed (a rename into or out of a folder sets the folder's), in
    /// milliseconds since the Unix epoch; `nil` when nothing is there.
    static func changedAt(_ path: String) -> Int64? {
        FileIO.stamp(of: path)?.changedMilliseconds
    }

    /// `path` with symbolic links resolved; for a path that does not resolve (a folder taken away), its parent's
    /// resolved and its name; `path` itself when neither resolves.
    private static func resolved(_ path: String) -> String {
        if let real = realpath(path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        guard let parent = realpath(FileIO.parentDirectory(of: path), nil) else { return path }
        defer { free(parent) }
        return "\(String(cString: parent))/\(FileIO.fileName(of: path))"
    }
}
