import Glibc

/// Whether anyone but root and this process's user could change what is at a path: write the file itself, or replace
/// it by writing a folder on the way to it.
///
/// What a daemon loads as code (a plugin's library, and the manifest whose checksum pins it) must be safe in this
/// sense, or whoever can write it runs code as the daemon. The rule is OpenSSH's `StrictModes`: the file and every
/// folder from `/` down to it are owned by root or by this process's user, and none is writable by its group or by
/// others, but for a folder with the sticky bit (`/tmp`), where no one can rename or remove what another owns. A
/// path through symbolic links is checked twice: as written, and as the links resolve.
package enum PathSafety {
    /// Why someone other than root and this process's user could change what is at one of `paths`, naming the file
    /// or folder and its owner, or every file and folder whose mode lets others write it, with the command that mends
    /// it; `nil` when no one could, or when a path is not there (its absence is found elsewhere). A folder on the way to
    /// several of them, or to a path both as written and as resolved, is looked at once.
    package static func problem(with paths: String...) -> String? {
        var candidates: [String] = []
        for path in paths {
            candidates.append(AbsolutePath.resolving(path) ?? path)
            if let resolved = realpath(path, nil) {
                candidates.append(String(cString: resolved))
                free(resolved)
            }
        }
        let trusted: Set<uid_t> = [0, geteuid()]
        var looked: Set<String> = []
        var writable: [(path: String, mode: String, byAnyone: Bool)] = []
        for candidate in candidates {
            for step in steps(of: candidate) where looked.insert(step).inserted {
                var status = stat()
                guard stat(step, &status) == 0 else { continue }
                let isStickyFolder = status.st_mode & S_IFMT == S_IFDIR && status.st_mode & S_ISVTX != 0
                if !trusted.contains(status.st_uid) {
                    return "\(step) belongs to user \(status.st_uid), neither root nor the daemon's user "
                        + "(\(geteuid())): chown it to one of them, or copy the plugin into a folder of theirs, like "
                        + "the daemon's plugins folder"
                }
                if status.st_mode & 0o022 != 0, !isStickyFolder {
                    let mode = "0" + String(status.st_mode & 0o7777, radix: 8)
                    writable.append((step, mode, status.st_mode & 0o002 != 0))
                }
            }
        }
        guard let first = writable.first else { return nil }
        // All of them at once: named one at a time, a plugin built under a umask of 002 took six rounds of fixes (a
        // walkthrough), each folder of its build group-writable.
        let who = writable.contains { $0.byAnyone } ? "anyone" : writable.count == 1 ? "its group" : "their group"
        let named =
            writable.count == 1
            ? "\(first.path) may be written by \(who) (mode \(first.mode))"
            : "\(writable.map { "\($0.path) (\($0.mode))" }.joined(separator: ", ")) may be written by \(who)"
        return "\(named); chmod go-w \(writable.map(\.path).joined(separator: " ")) (a umask of 002 makes new files "
            + "and folders so)"
    }

    /// `/`, then each folder of `path` in turn, then `path` itself.
    private static func steps(of path: String) -> [String] {
        var steps = ["/"]
        var current = ""
        for component in path.split(separator: "/") {
            current += "/\(component)"
            steps.append(current)
        }
        return steps
    }
}
