import Glibc

/// The few file operations the plugin registry and the durable store need, on plain system calls.
///
/// NavHostStorage does not link Foundation; these helpers read and write whole small files, stream large ones, list
/// folders, and replace a file atomically.
package enum FileIO {
    /// What is at a path.
    package enum Kind: Sendable, Hashable {
        case regularFile
        case directory
        case other
    }

    /// Whether `path` itself is a symbolic link, whatever it leads to (nothing, or a loop).
    package static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    /// What is at `path` (following symbolic links), or `nil` when nothing is.
    package static func kind(of path: String) -> Kind? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regularFile
        case S_IFDIR: return .directory
        default: return .other
        }
    }

    /// Which file is at a path, and which content it has as far as the file system says: its device and inode, size,
    /// and times of last modification and of last status change (which no program can set back, as `cp -p` does the
    /// first). A file written since, or another file moved in its place, has another stamp.
    package struct Stamp: Sendable, Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: timespec
        var changed: timespec

        /// When the file's status last changed (written, renamed, its mode set), in milliseconds since the epoch.
        package var changedMilliseconds: Int64 { changed.milliseconds }

        package static func == (lhs: Stamp, rhs: Stamp) -> Bool {
            lhs.device == rhs.device && lhs.inode == rhs.inode && lhs.size == rhs.size
                && lhs.modified.tv_sec == rhs.modified.tv_sec && lhs.modified.tv_nsec == rhs.modified.tv_nsec
                && lhs.changed.tv_sec == rhs.changed.tv_sec && lhs.changed.tv_nsec == rhs.changed.tv_nsec
        }
    }

    /// The stamp of the file at `path` (following symbolic links), or `nil` when nothing is there.
    package static func stamp(of path: String) -> Stamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Stamp(
            device: UInt64(info.st_dev),
            inode: UInt64(info.st_ino),
            size: Int64(info.st_size),
            modified: info.st_mtim,
            changed: info.st_ctim
        )
    }

    /// The names in the folder at `path`, without `.` and `..`, sorted.
    package static func directoryEntries(_ path: String) throws(FileAccessError) -> [String] {
        guard let directory = opendir(path) else { throw .system("opendir", path: path, errno: errno) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The largest file ``readFile(_:limit:)`` accepts unless told otherwise, and the largest the daemon's state
    /// writes (``writeDurably(_:at:to:cuttingTo:create:headLast:mode:)``, ``writePrivately(_:to:)``) make: a state
    /// file written larger would be acknowledged, then refused at the next start, and the state in it lost.
    package static let largestFile = 16 << 20

    /// Reads the whole file at `path`.
    ///
    /// - Parameter limit: The largest file accepted; a larger one fails with ``FileAccessError/Code/tooLarge``.
    package static func readFile(_ path: String, limit: Int = largestFile) throws(FileAccessError) -> [UInt8] {
        var bytes: [UInt8] = []
        try forEachChunk(of: path) { (chunk: UnsafeRawBufferPointer) throws(FileAccessError) in
            guard bytes.count + chunk.count <= limit else {
                throw FileAccessError(code: .tooLarge, message: "the file is larger than \(limit) bytes", path: path)
            }
            bytes.append(contentsOf: chunk)
            return true
        }
        return bytes
    }

    /// Reads the whole file at `path`, or `nil` when there is none (nor a folder holding it).
    package static func readFileIfPresent(
        _ path: String,
        limit: Int = largestFile
    ) throws(FileAccessError) -> [UInt8]? {
        do {
            return try readFile(path, limit: limit)
        } catch  where error.code == .notFound {
            return nil
        }
    }

    /// Reads at most `count` bytes from the start of the file at `path`.
    package static func readPrefix(_ path: String, count: Int) throws(FileAccessError) -> [UInt8] {
        var bytes: [UInt8] = []
        try forEachChunk(of: path, chunkSize: count) { (chunk: UnsafeRawBufferPointer) throws(FileAccessError) in
            bytes.append(contentsOf: chunk.prefix(count - bytes.count))
            return bytes.count < count
        }
        return bytes
    }

    /// Reads the file at `path` chunk by chunk, without holding more than one chunk in memory.
    ///
    /// - Parameters:
    ///   - chunkSize: The most bytes handed to `body` at once.
    ///   - body: Gets each chunk, valid only during the call; returns `false` to stop reading.
    package static func forEachChunk(
        of path: String,
        chunkSize: Int = 64 << 10,
        _ body: (UnsafeRawBufferPointer) throws(FileAccessError) -> Bool
    ) throws(FileAccessError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system("open", path: path, errno: errno) }
        defer { close(descriptor) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(chunkSize, 1), alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw .system("read", path: path, errno: errno)
            }
            if count == 0 { return }
            guard try body(UnsafeRawBufferPointer(rebasing: buffer[..<count])) else { return }
        }
    }

    /// Creates the folder at `path` and any missing folders above it, durably: the entry of each folder made is
    /// flushed in its parent (`fsync`), so that a file later made durable in it is not lost with its folder at a power
    /// cut.
    package static func makeDirectories(_ path: String, mode: UInt32 = 0o755) throws(FileAccessError) {
        if kind(of: path) == .directory { return }
        let parent = parentDirectory(of: path)
        if parent != path, !parent.isEmpty { try makeDirectories(parent, mode: mode) }
        guard mkdir(path, mode) == 0 else {
            guard errno == EEXIST else { throw .system("mkdir", path: path, errno: errno) }
            return
        }
        try syncDirectory(parent.isEmpty ? "/" : parent)
    }

    /// Replaces the file at `path` with `bytes`, so that a crash at any moment leaves either the old file or the new
    /// one, never a mix: write a temporary file beside it, `fsync` it, rename it over `path`, `fsync` the folder.
    package static func writeAtomically(
        _ bytes: some Collection<UInt8>,
        to path: String,
        mode: UInt32 = 0o644
    ) throws(FileAccessError) {
        try replace(path, mode: mode, durably: true) { descriptor, temporary throws(FileAccessError) in
            try writeAll(Array(bytes), to: descriptor, path: temporary)
        }
    }

    /// Appends `bytes` to the file at `path`, creating it (with `mode`) when it is not there. Not flushed to disk: for
    /// diagnostic files a crash may cut short, like a flight recording.
    ///
    /// A symbolic link at `path` is refused (`ELOOP`) unless `followingLinks`: a daemon's file in its state folder is
    /// never a link, and one planted there would have it write wherever the link points.
    package static func append(
        _ bytes: [UInt8],
        to path: String,
        mode: UInt32 = 0o600,
        followingLinks: Bool = false
    ) throws(FileAccessError) {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW), mode)
        guard descriptor >= 0 else { throw .system("open", path: path, errno: errno) }
        defer { close(descriptor) }
        try writeAll(bytes, to: descriptor, path: path)
    }

    /// Writes `bytes` into the file at `path` at `offset`, durably: after this returns, a crash does not lose them.
    /// One `pwrite` and one `fdatasync`, against the four steps and two `fsync`s of
    /// ``writeAtomically(_:to:mode:)``. A crash during the call may leave part of `bytes` written, so what is written
    /// must say where it ends and whether it is whole (as the lines of a session's journal do).
    ///
    /// Written over blocks the file already has, the `fdatasync` flushes the data alone: the file's size and its
    /// blocks do not change, so the file system commits no metadata (on ext4, 80–105 µs a write against 129–151 µs
    /// for an append; docs/durability.md).
    ///
    /// The file is opened for the write and closed after it: a file held open for writing would keep its file system
    /// from being remounted read-only.
    ///
    /// - Parameters:
    ///   - size: The file's size after the write, when given: a longer file is cut to it.
    ///   - create: Whether a file that is not there is made (with `mode`; its folder's entry flushed to disk too).
    ///   - headLast: How many bytes at the start of `bytes` are written after the rest: when the rest cannot be
    ///     written (a full disk gives the file a few of the blocks it needs, then `ENOSPC`), none of them is in the
    ///     file. A journal's first line, written with the zeros that make its file whole, is so.
    /// - Returns: `false`, having written nothing, when the file is not there and `create` is `false`.
    /// - Throws: ``FileAccessError/Code/tooLarge``, having written nothing, when the write would take the file past
    ///   ``largestFile``.
    @discardableResult
    package static func writeDurably(
        _ bytes: [UInt8],
        at offset: Int,
        to path: String,
        cuttingTo size: Int? = nil,
        create: Bool = true,
        headLast: Int = 0,
        mode: UInt32 = 0o600
    ) throws(FileAccessError) -> Bool {
        try checkSize(size ?? offset + bytes.count, of: path)
        // The file is there for every write but the first: opened at once, with no `stat` to ask first. A `stat` of
        // the file before the write made the `fdatasync` after it about 40 µs slower on ext4 (docs/durability.md).
        // Never through a symbolic link: one planted in the state folder would have the write land where it points.
        var descriptor = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
        var created = false
        if descriptor < 0, errno == ENOENT {
            guard create else { return false }
            descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
            created = descriptor >= 0
        }
        guard descriptor >= 0 else { throw .system("open", path: path, errno: errno) }
        do throws(FileAccessError) {
            if headLast > 0, headLast < bytes.count {
                let failure: FileAccessError? = bytes.withUnsafeBytes { raw in
                    do throws(FileAccessError) {
                        let head = UnsafeRawBufferPointer(rebasing: raw[..<headLast])
                        try writeAll(
                            UnsafeRawBufferPointer(rebasing: raw[headLast...]),
                            to: descriptor,
                            at: offset + headLast,
                            path: path
                        )
                        try writeAll(head, to: descriptor, at: offset, path: path)
                        return nil
                    } catch {
                        return error
                    }
                }
                if let failure { throw failure }
            } else {
                try writeAll(bytes, to: descriptor, at: offset, path: path)
            }
            if let size { try cut(descriptor, to: size, path: path) }
            guard fdatasync(descriptor) == 0 else { throw .system("fdatasync", path: path, errno: errno) }
        } catch {
            close(descriptor)
            throw error
        }
        guard close(descriptor) == 0 else { throw .system("close", path: path, errno: errno) }
        // A new file's name is an entry of its folder: without this a crash could lose the file, data and all.
        if created { try syncDirectory(parentDirectory(of: path)) }
        return true
    }

    /// ``writeAtomically(_:to:mode:)`` for a file of the daemon's state: readable by its owner only (0600), in a folder
    /// made (0700, with its missing parents) when it is not there.
    ///
    /// - Throws: ``FileAccessError/Code/tooLarge``, having written nothing, for more than ``largestFile`` bytes.
    package static func writePrivately(_ bytes: some Collection<UInt8>, to path: String) throws(FileAccessError) {
        try checkSize(bytes.count, of: path)
        try makeDirectories(parentDirectory(of: path), mode: 0o700)
        try writeAtomically(bytes, to: path, mode: 0o600)
    }

    /// Refuses a state file of `size` bytes that ``readFile(_:limit:)`` would not read back.
    private static func checkSize(_ size: Int, of path: String) throws(FileAccessError) {
        guard size > largestFile else { return }
        throw FileAccessError(
            code: .tooLarge,
            message: "the file would be \(size) bytes, more than the \(largestFile) the daemon reads back",
            path: path
        )
    }

    /// Moves `path` aside to `path.<suffix>` (or `path.<suffix>-1`, `-2`, … when that is taken), keeping it for a
    /// person to look at, and returns the new name. It never replaces a file moved aside earlier, even one moved in
    /// the same second: the new name is made with `link`, which fails on an existing name, and only then is `path`
    /// removed; the folder is flushed to disk after.
    package static func moveAside(_ path: String, suffix: String) throws(FileAccessError) -> String {
        var attempt = 0
        while true {
            let destination = attempt == 0 ? "\(path).\(suffix)" : "\(path).\(suffix)-\(attempt)"
            if link(path, destination) == 0 {
                guard unlink(path) == 0 else { throw .system("unlink", path: path, errno: errno) }
                try syncDirectory(parentDirectory(of: path))
                return destination
            }
            guard errno == EEXIST else { throw .system("link", path: destination, errno: errno) }
            attempt += 1
        }
    }

    /// Copies `source` to `destination`, which appears whole or not at all (written beside it, then renamed). Not
    /// flushed to disk: for files that a crash may lose, like the private copies of plugin libraries.
    ///
    /// The file is copied in chunks, never held whole in memory: a library read at once would leave its size in the
    /// allocator's heap long after.
    package static func copy(_ source: String, to destination: String, mode: UInt32 = 0o644) throws(FileAccessError) {
        try replace(destination, mode: mode, durably: false) { descriptor, temporary throws(FileAccessError) in
            try forEachChunk(of: source) { chunk throws(FileAccessError) in
                try writeAll(chunk, to: descriptor, path: temporary)
                return true
            }
        }
    }

    /// Removes the file at `path`, if there is one.
    package static func remove(_ path: String) {
        unlink(path)
    }

    /// Removes every file directly in `directory` (not its subfolders); nothing when it does not exist.
    package static func removeFiles(in directory: String) {
        guard let names = try? directoryEntries(directory) else { return }
        for name in names where kind(of: "\(directory)/\(name)") == .regularFile { unlink("\(directory)/\(name)") }
    }

    /// Moves `source` to `destination` in one step (both on one file system).
    package static func move(_ source: String, to destination: String) throws(FileAccessError) {
        guard rename(source, destination) == 0 else { throw .system("rename", path: source, errno: errno) }
    }

    /// Flushes a folder's entries (a rename or a new file in it) to disk.
    package static func syncDirectory(_ path: String) throws(FileAccessError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system("open", path: path, errno: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw .system("fsync", path: path, errno: errno) }
    }

    /// `path` with every symbolic link followed (`realpath(3)`); `nil` when it does not exist or cannot be reached.
    package static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The folder part of `path`: `a/b` for `a/b/c`, `.` for `c`, `/` for `/c`.
    package static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last part of `path`: `c` for `a/b/c`.
    package static func fileName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}

// MARK: - Private Functions

extension FileIO {
    /// Writes a new file beside `path` with `write`, then renames it over `path`: `path` is the old file or the whole
    /// new one, never a mix. `durably`: the new file and the folder's entry are flushed to disk (`fsync`) too.
    fileprivate static func replace(
        _ path: String,
        mode: UInt32,
        durably: Bool,
        write: (_ descriptor: Int32, _ temporary: String) throws(FileAccessError) -> Void
    ) throws(FileAccessError) {
        let directory = parentDirectory(of: path)
        let temporary = "\(directory)/.\(fileName(of: path)).tmp-\(getpid())-\(UInt32.random(in: .min ... .max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw .system("open", path: temporary, errno: errno) }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do throws(FileAccessError) {
            try write(descriptor, temporary)
            if durably, fsync(descriptor) != 0 { throw .system("fsync", path: temporary, errno: errno) }
        } catch {
            close(descriptor)
            throw error
        }
        guard close(descriptor) == 0 else { throw .system("close", path: temporary, errno: errno) }
        guard rename(temporary, path) == 0 else { throw .system("rename", path: path, errno: errno) }
        renamed = true
        guard durably else { return }
        do {
            try syncDirectory(directory)
        } catch {
            var uncertain = error
            uncertain.mayHaveReplaced = true
            throw uncertain
        }
    }

    /// Writes all of `bytes` at the descriptor's position, or at `offset` when one is given (`pwrite`), as far as it
    /// takes them (a write cut short goes on, one interrupted is made again); `path` names the file in an error.
    package static func writeAll(
        _ bytes: [UInt8],
        to descriptor: Int32,
        at offset: Int? = nil,
        path: String
    ) throws(FileAccessError) {
        let failure: FileAccessError? = bytes.withUnsafeBytes { raw in
            do throws(FileAccessError) {
                try writeAll(raw, to: descriptor, at: offset, path: path)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Cuts the open file to `size` bytes when it is longer; a file of that size or shorter is left as it is.
    fileprivate static func cut(_ descriptor: Int32, to size: Int, path: String) throws(FileAccessError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .system("fstat", path: path, errno: errno) }
        guard Int(info.st_size) > size else { return }
        guard ftruncate(descriptor, off_t(size)) == 0 else { throw .system("ftruncate", path: path, errno: errno) }
    }

    fileprivate static func writeAll(
        _ raw: UnsafeRawBufferPointer,
        to descriptor: Int32,
        at offset: Int? = nil,
        path: String
    ) throws(FileAccessError) {
        var written = 0
        while written < raw.count {
            let start = raw.baseAddress! + written
            let count =
                if let offset {
                    pwrite(descriptor, start, raw.count - written, off_t(offset + written))
                } else {
                    write(descriptor, start, raw.count - written)
                }
            if count < 0 {
                if errno == EINTR { continue }
                throw .system(offset == nil ? "write" : "pwrite", path: path, errno: errno)
            }
            written += count
        }
    }
}
