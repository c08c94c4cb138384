internal import CFaultGuard
import Glibc
public import Logging
import NavHostKit
public import NavHostStorage
import Synchronization

/// Names the plugin that took the daemon down, and keeps it out on the next starts.
///
/// A plugin's code runs in the daemon's process, on the main thread. When it traps, touches bad memory or holds the
/// main thread past the stall limit (see ``MainThreadStallDetector``), nothing inside the process can undo it: the
/// daemon exits, and systemd starts it again. The guard makes sure it comes back without that plugin:
///
/// 1. ``install()`` sets signal handlers (in C: `CFaultGuard`) that, when a fatal signal arrives or the stall detector
///    probes the main thread, walk the stack. The first frame inside a plugin's library names the plugin; its name,
///    checksum and the cause go to `<state-dir>/plugin-fault` (fsynced) before the signal takes its course.
/// 2. On the next start, ``recordFaultOfLastRun()`` moves that marker into the ledger, `<state-dir>/plugin-faults.json`.
/// 3. The registry quarantines a plugin whose name and library checksum are in the ledger (``fault(of:)``), with
///    ``QuarantineReason/Code/crashed`` or ``QuarantineReason/Code/stalled``. A new build (another checksum) loads again.
///
/// Nothing is written while plugins behave: no file is touched per call.
public final class PluginFaultGuard: Sendable {
    // MARK: Private Properties

    private let markerPath: String
    private let ledgerPath: String
    private let ledger: Mutex<[PluginFault]>
    private let logger: Logger

    // MARK: Initialization

    /// A guard keeping its marker and ledger in `stateDirectory`.
    public init(stateDirectory: String, logger: Logger) {
        let ledgerPath = "\(stateDirectory)/plugin-faults.json"
        self.markerPath = "\(stateDirectory)/plugin-fault"
        self.ledgerPath = ledgerPath
        self.logger = logger
        self.ledger = Mutex(Self.readLedger(at: ledgerPath, logger: logger))
    }

    // MARK: Public Functions

    /// Moves the marker an earlier run left (a plugin crashed or stalled it) into the ledger, and logs it. Call it
    /// before ``install()`` and before plugins load.
    ///
    /// - Returns: The fault the marker recorded, if any.
    @discardableResult
    public func recordFaultOfLastRun() -> PluginFault? {
        guard let bytes = try? FileIO.readFileIfPresent(markerPath), !bytes.isEmpty else { return nil }
        defer { FileIO.remove(markerPath) }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 3, let cause = PluginFault.Cause(rawValue: String(lines[1])) else {
            logger.warning("Ignored an unreadable plugin fault marker", metadata: ["navhost.file": "\(markerPath)"])
            return nil
        }
        let label = lines[0].split(separator: " ", maxSplits: 1)
        guard label.count == 2 else { return nil }
        let fault = PluginFault(
            plugin: String(label[0]),
            sha256: String(label[1]),
            cause: cause,
            detail: String(lines[2])
        )
        ledger.withLock { faults in
            faults.removeAll { $0.plugin == fault.plugin }
            faults.append(fault)
        }
        saveLedger()
        logger.error(
            "A plugin took the daemon down on its last run; it stays quarantined until its library changes",
            metadata: [
                "navhost.plugin": "\(fault.plugin)", "navhost.plugin.fault": "\(fault.cause.rawValue)",
                "error": "\(fault.detail)",
            ]
        )
        return fault
    }

    /// Installs the signal handlers. Call it on the main thread (it gets an alternate signal stack), after
    /// ``recordFaultOfLastRun()``.
    public func install() throws(FileAccessError) {
        guard navhost_fault_guard_install(markerPath) == 0 else {
            throw FileAccessError(code: .io, message: String(cString: strerror(errno)), path: markerPath)
        }
    }

    /// The recorded fault of the plugin `manifest` describes, when its library is the one that faulted.
    public func fault(of manifest: PluginManifest) -> PluginFault? {
        ledger.withLock { faults in faults.first { $0.plugin == manifest.name && $0.sha256 == manifest.sha256 } }
    }

    /// Tells the handlers that the library mapped from `path` is the plugin `manifest` describes. Call it right after
    /// `dlopen`, before any of its code runs.
    public func watch(libraryAt path: String, of manifest: PluginManifest) {
        if navhost_fault_guard_add_library(Self.label(of: manifest), path) != 0 {
            logger.warning(
                "Cannot follow a plugin's library: a fault in it will not be traced to it",
                metadata: ["navhost.plugin": "\(manifest.name)", "navhost.plugin.path": "\(path)"]
            )
        }
    }

    // MARK: Private Functions

    private static func label(of manifest: PluginManifest) -> String { "\(manifest.name) \(manifest.sha256)" }

    private static func readLedger(at path: String, logger: Logger) -> [PluginFault] {
        do {
            guard let bytes = try FileIO.readFileIfPresent(path) else { return [] }
            return try JSONValueDecoder().decode([PluginFault].self, fromBytes: bytes)
        } catch {
            logger.error(
                "Cannot read the plugin fault ledger",
                metadata: ["navhost.file": "\(path)", "error": "\(error)"]
            )
            return []
        }
    }

    private func saveLedger() {
        do {
            let faults = ledger.withLock { $0 }
            try FileIO.writePrivately(try JSONValueEncoder().encode(faults).serializedBytes(), to: ledgerPath)
        } catch {
            logger.error(
                "Cannot write the plugin fault ledger",
                metadata: ["navhost.file": "\(ledgerPath)", "error": "\(error)"]
            )
        }
    }
}
