import Glibc
public import NavHostStorage
import Synchronization

/// Watches a plugins folder with inotify and reports which plugin folders in it changed.
///
/// ```swift
/// let monitor = try PluginFolderMonitor(directory: "/usr/lib/navhost/plugins")
/// for await change in monitor.changes {
///     switch change {
///     case .changed(let folders): …   // these plugin folders changed (nil: any may have)
///     case .settled: …                // nothing has changed for `settleTime`
///     }
/// }
/// ```
///
/// It watches the folder itself and every plugin folder in it (new ones as they appear), for files created,
/// written and closed, modified, moved in or out, deleted, and changed attributes; and the folder that holds it, for
/// the plugins folder's own name. So a plugins folder that does not exist yet is watched once it is created, and one
/// replaced by another (moved aside and a new one moved in, or a symbolic link to it pointed elsewhere) is watched
/// as the path names it now: each is reported as `.changed(nil)`, and the folder moved aside is no longer watched.
/// While the path names no folder, it is also looked for every second, for what its parent's events cannot tell (a
/// link's target made again, a folder mounted again).
///
/// Changes are reported in batches: a batch goes out once nothing changed for `quietPeriod` (or, under a steady
/// stream of changes, after ten quiet periods), so a copy of many files is one batch. `.settled` follows the last
/// batch once nothing has changed for `settleTime`: a writer that pauses that long is taken to have finished, or
/// given up.
///
/// The kernel's events are read on a thread of the monitor's own, never on the Swift concurrency pool: a blocking
/// `poll` there would hold one of its few threads.
public final class PluginFolderMonitor: Sendable {
    /// What changed.
    public enum Change: Sendable, Hashable {
        /// These plugin folders (names in the watched folder) changed; `nil` when any may have (the kernel's queue
        /// overflowed, or the watched folder itself appeared, went or was replaced).
        case changed(Set<String>?)
        /// Nothing has changed for the settle time since the last batch.
        case settled
    }

    // MARK: Public Properties

    /// The folder watched.
    public let directory: String
    /// The batches of changes, in order; it ends after ``stop()``.
    public let changes: AsyncStream<Change>

    // MARK: Private Properties

    private let inotify: Int32
    private let wakeUp: (read: Int32, write: Int32)
    private let stopped = Mutex(false)

    // MARK: Initialization

    /// Starts watching `directory`.
    ///
    /// - Parameters:
    ///   - quietPeriod: How long nothing must change before a batch is reported.
    ///   - settleTime: How long nothing must change after a batch before `.settled` is reported.
    /// - Throws: ``FileAccessError`` when inotify cannot start or `directory` cannot be watched. A `directory` that
    ///   does not exist is no error when the folder that would hold it can be watched: it is followed from when it
    ///   appears.
    public init(
        directory: String,
        quietPeriod: Duration = .milliseconds(20),
        settleTime: Duration = .seconds(2)
    ) throws(FileAccessError) {
        self.directory = directory
        inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard inotify >= 0 else { throw .system("inotify_init1", path: directory, errno: errno) }
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            let number = errno
            close(inotify)
            throw .system("pipe", path: directory, errno: number)
        }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        wakeUp = (pipeEnds[0], pipeEnds[1])
        let (stream, continuation) = AsyncStream.makeStream(of: Change.self, bufferingPolicy: .unbounded)
        changes = stream
        let reader = EventReader(
            directory: directory,
            inotify: inotify,
            wakeUp: wakeUp.read,
            quietPeriod: quietPeriod,
            settleTime: settleTime,
            continuation: continuation
        )
        do throws(FileAccessError) {
            try reader.watchEverything()
        } catch {
            close(inotify)
            close(wakeUp.read)
            close(wakeUp.write)
            throw error
        }
        continuation.onTermination = { [weak self] _ in self?.stop() }
        reader.start()
    }

    deinit {
        stop()
        close(wakeUp.write)
    }

    // MARK: Public Functions

    /// Stops watching; ``changes`` ends.
    public func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        if first {
            var byte: UInt8 = 1
            _ = write(wakeUp.write, &byte, 1)
        }
    }
}

// MARK: - Reading the kernel's events

/// The monitor's thread: reads inotify events, keeps the watches up to date, batches and reports changes.
private final class EventReader: @unchecked Sendable {
    // Only the reader's own thread touches these after `start()`.
    private let directory: String
    /// The folder that holds `directory`, and `directory`'s name in it.
    private let parent: (path: String, name: String)
    private let inotify: Int32
    private let wakeUp: Int32
    private let quietPeriod: Duration
    private let settleTime: Duration
    private let continuation: AsyncStream<PluginFolderMonitor.Change>.Continuation
    /// Plugin folder names by watch descriptor; the watched folder itself is `rootWatch`.
    private var folders: [Int32: String] = [:]
    private var rootWatch: Int32 = -1
    /// The watch of `parent.path`, for `parent.name` alone; -1 for none.
    private var parentWatch: Int32 = -1
    /// Folders changed since the last batch; `nil` inside means any.
    private var changed: Set<String>? = []
    private var batchStarted: ContinuousClock.Instant?
    private var lastChange: ContinuousClock.Instant?
    private var awaitingSettle = false

    private static let folderEvents = UInt32(
        IN_CREATE | IN_CLOSE_WRITE | IN_MODIFY | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE | IN_ATTRIB
            | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR
    )
    /// What the folder holding the plugins folder is watched for: its name created, moved in or out, deleted (a
    /// symbolic link replaced is one of these too).
    private static let parentEvents = UInt32(IN_CREATE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE | IN_ONLYDIR)

    init(
        directory: String,
        inotify: Int32,
        wakeUp: Int32,
        quietPeriod: Duration,
        settleTime: Duration,
        continuation: AsyncStream<PluginFolderMonitor.Change>.Continuation
    ) {
        self.directory = directory
        var trimmed = Substring(directory)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        parent = (FileIO.parentDirectory(of: String(trimmed)), FileIO.fileName(of: String(trimmed)))
        self.inotify = inotify
        self.wakeUp = wakeUp
        self.quietPeriod = quietPeriod
        self.settleTime = settleTime
        self.continuation = continuation
    }

    /// Watches the folder that holds the plugins folder, the plugins folder and each plugin folder in it.
    func watchEverything() throws(FileAccessError) {
        if !parent.name.isEmpty { parentWatch = inotify_add_watch(inotify, parent.path, Self.parentEvents) }
        let failure = watchPluginsFolder()
        // A plugins folder not there yet is followed from when it appears, if its parent's changes can be seen.
        guard failure != 0, failure != ENOENT || parentWatch < 0 else { return }
        throw .system("inotify_add_watch", path: directory, errno: failure)
    }

    func start() {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(
            &thread,
            nil,
            { context in
                let reader = Unmanaged<EventReader>.fromOpaque(context!).takeRetainedValue()
                reader.run()
                return nil
            },
            context
        )
        if created == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<EventReader>.fromOpaque(context).release()
            finish()
        }
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var descriptors = [
                pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeUp, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 2, pollTimeout())
            if ready < 0, errno != EINTR { break }
            if descriptors[1].revents != 0 { break }
            if descriptors[0].revents != 0 { readEvents(into: &buffer) }
            // Not there when last looked for, it may be now without an event of its parent: a link's target made
            // again, a folder mounted again.
            if rootWatch < 0, watchPluginsFolder() == 0 { pluginsFolderChanged() }
            reportDue()
        }
        finish()
    }

    private func finish() {
        continuation.finish()
        close(inotify)
        close(wakeUp)
    }

    /// Milliseconds until the next batch or settle is due; -1 for none.
    private func pollTimeout() -> Int32 {
        let now = ContinuousClock.now
        let due: ContinuousClock.Instant?
        if changed?.isEmpty == false || changed == nil, let lastChange, let batchStarted {
            due = min(lastChange + quietPeriod, batchStarted + quietPeriod * 10)
        } else if awaitingSettle, let lastChange {
            due = lastChange + settleTime
        } else {
            due = nil
        }
        // While the plugins folder is not watched, it is looked for again every second.
        let retry: Int32 = rootWatch < 0 ? 1000 : -1
        guard let due else { return retry }
        let left = due - now
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
        return retry < 0 ? milliseconds : min(milliseconds, retry)
    }

    private func reportDue() {
        let now = ContinuousClock.now
        if changed?.isEmpty == false || changed == nil, let lastChange, let batchStarted,
            now >= min(lastChange + quietPeriod, batchStarted + quietPeriod * 10)
        {
            continuation.yield(.changed(changed))
            changed = []
            self.batchStarted = nil
            awaitingSettle = true
        } else if awaitingSettle, changed?.isEmpty == true, let lastChange, now >= lastChange + settleTime {
            continuation.yield(.settled)
            awaitingSettle = false
        }
    }

    private func readEvents(into buffer: inout [UInt8]) {
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            var offset = 0
            while offset + 16 <= count {
                let (descriptor, mask, length) = buffer.withUnsafeBytes { raw in
                    (
                        raw.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                        raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                        Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    )
                }
                let nameBytes = buffer[(offset + 16)..<min(offset + 16 + length, count)].prefix { $0 != 0 }
                handle(descriptor: descriptor, mask: mask, name: String(decoding: nameBytes, as: UTF8.self))
                offset += 16 + length
            }
        }
    }

    private func handle(descriptor: Int32, mask: UInt32, name: String) {
        if mask & UInt32(IN_IGNORED) != 0 {
            // A watch gone: taken away here (its folder left, or was watched again), or by the kernel (its folder
            // deleted or unmounted). Only the plugins folder's own is a change.
            folders[descriptor] = nil
            if descriptor == parentWatch { parentWatch = -1 }
            guard descriptor == rootWatch else { return }
            rootWatch = -1
            watchPluginsFolder()
            pluginsFolderChanged()
            return
        }
        // Of the parent's entries, only the plugins folder's own name counts.
        if descriptor == parentWatch, mask & UInt32(IN_Q_OVERFLOW) == 0, name != parent.name { return }
        noteChange()
        if mask & UInt32(IN_Q_OVERFLOW) != 0 || descriptor == parentWatch {
            // Events lost, or the plugins folder itself appeared, went, or was replaced: what the path names now is
            // watched, and looked at whole.
            watchPluginsFolder()
            changed = nil
            return
        }
        if descriptor == rootWatch {
            if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
                // Moved aside, it would still be watched where it went: the path is watched again instead.
                watchPluginsFolder()
                changed = nil
                return
            }
            guard !name.isEmpty, !name.hasPrefix(".") else { return }
            if mask & UInt32(IN_ISDIR) != 0 {
                if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 { watchFolder(name) }
                if mask & UInt32(IN_MOVED_FROM | IN_DELETE) != 0 { unwatchFolder(name) }
            }
            changed?.insert(name)
        } else if let folder = folders[descriptor] {
            changed?.insert(folder)
        }
    }

    /// Records that the plugins folder itself changed: every plugin folder in it is to be looked at.
    private func pluginsFolderChanged() {
        noteChange()
        changed = nil
    }

    /// Starts the batch, or makes it wait another quiet period.
    private func noteChange() {
        let now = ContinuousClock.now
        lastChange = now
        if batchStarted == nil { batchStarted = now }
    }

    /// Watches the plugins folder and each plugin folder in it as the path names them now, in place of what was
    /// watched before (a folder moved aside, a link's former target).
    ///
    /// - Returns: 0, or the `errno` of the plugins folder's watch (`ENOENT` while it does not exist).
    @discardableResult
    private func watchPluginsFolder() -> Int32 {
        for descriptor in folders.keys { inotify_rm_watch(inotify, descriptor) }
        folders = [:]
        if rootWatch >= 0 { inotify_rm_watch(inotify, rootWatch) }
        rootWatch = inotify_add_watch(inotify, directory, Self.folderEvents)
        guard rootWatch >= 0 else { return errno }
        for name in (try? FileIO.directoryEntries(directory)) ?? [] { watchFolder(name) }
        return 0
    }

    /// Stops watching the plugin folder `name`, which left the watched folder.
    private func unwatchFolder(_ name: String) {
        for (descriptor, folder) in folders where folder == name {
            inotify_rm_watch(inotify, descriptor)
            folders[descriptor] = nil
        }
    }

    /// Watches the plugin folder `name` (nothing for a file, a hidden name, or a folder already watched).
    private func watchFolder(_ name: String) {
        guard !name.hasPrefix("."), FileIO.kind(of: "\(directory)/\(name)") == .directory else { return }
        let descriptor = inotify_add_watch(inotify, "\(directory)/\(name)", Self.folderEvents)
        if descriptor >= 0 { folders[descriptor] = name }
    }
}
