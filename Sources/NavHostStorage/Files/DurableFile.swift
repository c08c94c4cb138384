import Glibc

/// A file kept open for durable writes in place: a session's journal, which takes one line per acknowledged change.
///
/// Each ``writeDurably(_:at:cuttingTo:)`` is one `pwrite` and one `fdatasync`, against the four steps and two `fsync`s
/// of ``FileIO/writeAtomically(_:to:mode:)``. A crash during the call may leave part of the bytes written, so what is
/// written must say where it ends and whether it is whole (as the lines of a session's journal do). Written over
/// blocks the file already has, the `fdatasync` flushes the data alone: the file's size and its blocks do not change,
/// so the file system commits no metadata (on ext4, 80–105 µs a write against 129–151 µs for an append;
/// docs/durability.md).
///
/// Opening the file once saves the `stat`, `open` and `close` that opening it for each write costs, on the way to
/// every reply that waits for a write; ``isUnlinked`` tells its user, for one `fstat`, when the file it holds open is
/// no longer the one at its path. The descriptor is closed when the last reference goes.
package final class DurableFile: Sendable {
    /// The file's path, for errors.
    package let path: String
    private let descriptor: Int32

    /// Opens the file at `path` for writing, creating it (with `mode`) when it is not there. A new file's entry in its
    /// folder is flushed to disk before this returns: without that a crash could lose the file, data and all.
    package init(openingForWritesAt path: String, mode: UInt32 = 0o600) throws(FileAccessError) {
        var descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        let created = descriptor >= 0
        if !created, errno == EEXIST { descriptor = open(path, O_WRONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw .system("open", path: path, errno: errno) }
        if created {
            do throws(FileAccessError) {
                try FileIO.syncDirectory(FileIO.parentDirectory(of: path))
            } catch {
                close(descriptor)
                throw error
            }
        }
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Whether the file lost its name since it was opened (deleted, or replaced by another file of its name): what
    /// is written to it then reaches no file a restart reads. One `fstat`, no path looked up.
    package var isUnlinked: Bool {
        var info = stat()
        return fstat(descriptor, &info) == 0 && info.st_nlink == 0
    }

    /// Writes `bytes` into the file at `offset`, durably: after this returns, a crash does not lose them.
    ///
    /// - Parameter size: The file's size after the write, when given: a longer file is cut to it.
    package func writeDurably(_ bytes: [UInt8], at offset: Int, cuttingTo size: Int? = nil) throws(FileAccessError) {
        try FileIO.writeAll(bytes, to: descriptor, at: offset, path: path)
        if let size { try FileIO.cut(descriptor, to: size, path: path) }
        guard fdatasync(descriptor) == 0 else { throw .system("fdatasync", path: path, errno: errno) }
    }
}
