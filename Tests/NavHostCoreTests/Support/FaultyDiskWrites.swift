import Dispatch
import Glibc
import NavHostStorage
import Synchronization

/// The disk, as ``DiskWrites`` writes a session's file, but with the faults a disk has: a write told to fail fails
/// after its bytes landed (an `fsync` that fails with `EIO` after a rename or a `pwrite`: the bytes are in the file
/// all the same, and a replacement's error says so, ``FileAccessError/mayHaveReplaced``), or before any of them did
/// (`ENOSPC`); the disk may fail every write until it heals; and a write may be held until the test lets it go. The
/// list of opened sessions can be written through it too (`OpenedSessionsFile(directory:writes:)`).
///
/// A full tmpfs gives the second kind only: its `fsync` never fails. The first needs a disk that fails.
final class FaultyDiskWrites: SessionFileWrites {
    /// How a write fails.
    enum Fault: Sendable {
        /// The bytes are written, then the write fails.
        case afterLanding
        /// Nothing is written; the write fails.
        case beforeLanding
    }

    fileprivate struct State {
        var faults: [Fault] = []
        /// The fault of every write once ``faults`` are used up, until ``heal()``.
        var broken: Fault?
        /// Whether the next write waits for ``release()``, and whether one waits now.
        var holdNext = false
        var holding = false
        /// The writes of a session's files to let go on before the one held (``holdTheWrite(_:toFilesOf:)``).
        var heldWrite: (session: String, writesBefore: Int)?
        /// Every write made, as "replace <file>" or "write <file>", the failed ones with the fault's name.
        var log: [String] = []
    }

    private let state = Mutex(State())
    private let released = DispatchSemaphore(value: 0)

    /// Fails the next writes, one fault each, in order.
    func failNext(_ faults: [Fault]) {
        state.withLock { $0.faults += faults }
    }

    /// Fails every write after those ``failNext(_:)`` names with `fault`, until ``heal()``.
    func breakDown(_ fault: Fault) {
        state.withLock { $0.broken = fault }
    }

    /// Ends ``breakDown(_:)``: the writes after those ``failNext(_:)`` names succeed.
    func heal() {
        state.withLock { $0.broken = nil }
    }

    /// Holds the next write until ``release()``.
    func holdNext() {
        state.withLock { $0.holdNext = true }
    }

    /// Holds the `number`th write, from now on, of session `session`'s files (`<session>.…`) until ``release()``,
    /// whatever comes between: a test that waits for the writes before it to be logged, then holds the next, races
    /// that write.
    func holdTheWrite(_ number: Int, toFilesOf session: String) {
        precondition(number > 0, "writes are counted from 1")
        state.withLock { $0.heldWrite = (session, number - 1) }
    }

    /// Whether a write is held now.
    var isHolding: Bool { state.withLock { $0.holding } }

    /// Lets the held write go on.
    func release() { released.signal() }

    /// The writes made so far.
    var log: [String] { state.withLock { $0.log } }

    func replace(_ path: String, with bytes: [UInt8]) throws(FileAccessError) {
        let fault = take("replace \(FileIO.fileName(of: path))", of: path)
        if fault != .beforeLanding { try DiskWrites().replace(path, with: bytes) }
        guard let fault else { return }
        // Renamed into place, the folder's `fsync` failed: a crash leaves either file.
        var error = FileAccessError.system(fault == .afterLanding ? "fsync" : "write", path: path, errno: EIO)
        error.mayHaveReplaced = fault == .afterLanding
        throw error
    }

    func write(
        _ bytes: [UInt8],
        at offset: Int,
        to path: String,
        cuttingTo size: Int?,
        create: Bool,
        headLast: Int
    ) throws(FileAccessError) -> Bool {
        let fault = take("write \(FileIO.fileName(of: path)) at \(offset)", of: path)
        var written = true
        if fault != .beforeLanding {
            written = try DiskWrites().write(
                bytes,
                at: offset,
                to: path,
                cuttingTo: size,
                create: create,
                headLast: headLast
            )
        }
        if fault != nil { throw FileAccessError.system("fdatasync", path: path, errno: EIO) }
        return written
    }

    /// Waits when the write, of the file at `path`, is to be held, then takes its fault, if any, and logs it.
    private func take(_ write: String, of path: String) -> Fault? {
        let hold = state.withLock { state in
            defer { state.holdNext = false }
            state.holding = state.holdNext || state.isTheHeldWrite(of: FileIO.fileName(of: path))
            return state.holding
        }
        if hold {
            released.wait()
            state.withLock { $0.holding = false }
        }
        return state.withLock { state in
            let fault = state.faults.isEmpty ? state.broken : state.faults.removeFirst()
            state.log.append(write + (fault.map { " (\($0))" } ?? ""))
            return fault
        }
    }
}

// MARK: - Held writes

extension FaultyDiskWrites.State {
    /// Counts a write of `fileName` towards ``heldWrite``; whether it is the one to hold.
    fileprivate mutating func isTheHeldWrite(of fileName: String) -> Bool {
        guard let held = heldWrite, fileName.hasPrefix(held.session + ".") else { return false }
        guard held.writesBefore == 0 else {
            heldWrite?.writesBefore -= 1
            return false
        }
        heldWrite = nil
        return true
    }
}
