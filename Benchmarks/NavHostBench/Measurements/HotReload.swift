import Glibc

/// Hot reload: a staged plugin's files are replaced by a new version while a watcher follows a session showing one of
/// its screens; the time runs until the daemon lists the new version and the watcher has received an update.
///
/// The daemon under test loads its plugins from a copy of the staged folder, so the benchmark can replace files in
/// it. The "new version" is the same library under a fresh inode (written beside it, then renamed over it) with the
/// manifest's version raised; nothing else about the plugin changes. When the daemon does not pick the change up
/// within `limit`, the measurement reports that instead of a time.
enum HotReload {
    /// What one attempt saw.
    enum Outcome {
        /// Nanoseconds from the replacement until the new version was listed and the watcher had an update.
        case reloaded(UInt64)
        /// Nothing within the limit; the text says what was missing.
        case notSeen(String)
    }

    /// Replaces `plugin` in `pluginDirectory` with version `version` and waits for the daemon to show it.
    static func attempt(
        socketPath: String,
        pluginDirectory: String,
        plugin: String,
        version: String,
        session: String,
        limitMilliseconds: Int
    ) throws -> Outcome {
        let replies = ReplyReader()
        let watcher = try RawConnection(path: socketPath)
        try watcher.write(VarlinkMessage.watch(session: session))
        try watcher.nextMessage { message in try replies.read(message) { _ in () } }
        let control = try RawConnection(path: socketPath)

        let folder = "\(pluginDirectory)/\(plugin)"
        try replaceLibrary(in: folder)
        try rewriteVersion(in: folder, to: version)
        let start = MonotonicClock.now()
        let deadline = start + UInt64(limitMilliseconds) * 1_000_000
        var listed: UInt64?
        var updated: UInt64?
        var poll = pollfd(fd: watcher.fd, events: Int16(POLLIN), revents: 0)
        while MonotonicClock.now() < deadline {
            if updated == nil, Glibc.poll(&poll, 1, 0) == 1 {
                try watcher.fill()
                if watcher.hasMessage { updated = MonotonicClock.now() }
            }
            if listed == nil, try listedVersion(of: plugin, on: control, replies: replies) == version {
                listed = MonotonicClock.now()
            }
            if let listed, let updated { return .reloaded(max(listed, updated) - start) }
            MonotonicClock.sleep(milliseconds: 2)
        }
        let missing = [
            listed == nil ? "io.navhost.Plugins.List did not report \(plugin) \(version)" : nil,
            updated == nil ? "the watcher of a \(plugin) screen got no update" : nil,
        ].compactMap { $0 }
        return .notSeen(missing.joined(separator: "; ") + " within \(limitMilliseconds) ms")
    }

    /// The version `io.navhost.Plugins.List` reports for `plugin`.
    private static func listedVersion(of plugin: String, on connection: RawConnection, replies: ReplyReader) throws
        -> String?
    {
        try connection.write(VarlinkMessage.call("io.navhost.Plugins.List"))
        return try connection.nextMessage { message in
            try replies.read(message) { reply in
                reply["parameters"]?["plugins"]?.elements.first { $0["name"]?.string == plugin }?["version"]?.string
            }
        }
    }

    /// Writes the library again beside itself and renames the copy over it: same bytes, a new file.
    private static func replaceLibrary(in folder: String) throws {
        guard let library = try libraryName(in: folder) else { throw BenchError("no library in \(folder)") }
        let (termination, output) = try Subprocess.run([
            "cp", "\(folder)/\(library)", "\(folder)/.\(library).new",
        ])
        guard termination.succeeded else { throw BenchError("copying \(library) failed: \(output)") }
        guard rename("\(folder)/.\(library).new", "\(folder)/\(library)") == 0 else {
            throw BenchError.system("rename(\(library))")
        }
    }

    /// Sets the manifest's `version`, written to a temporary file and renamed over the manifest.
    private static func rewriteVersion(in folder: String, to version: String) throws {
        let path = "\(folder)/manifest.json"
        guard let manifest = readFile(path) else { throw BenchError("cannot read \(path)") }
        var lines = manifest.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let index = lines.firstIndex(where: { $0.trimmingPrefix(while: \.isWhitespace).hasPrefix("\"version\"") })
        else { throw BenchError("no version in \(path)") }
        let indent = lines[index].prefix { $0 == " " }
        lines[index] = "\(indent)\"version\": \"\(version)\","
        try writeFile("\(path).new", lines.joined(separator: "\n"))
        guard rename("\(path).new", path) == 0 else { throw BenchError.system("rename(\(path))") }
    }

    private static func libraryName(in folder: String) throws -> String? {
        guard let manifest = readFile("\(folder)/manifest.json") else { return nil }
        let line = manifest.split(separator: "\n").first { $0.contains("\"library\"") }
        return line?.split(separator: "\"").dropFirst(3).first.map(String.init)
    }
}
