import Foundation
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

/// A state folder that fails: full (a tiny tmpfs) or read-only. A change that cannot be written is a failed call,
/// taken back before any watcher hears of it, and the daemon recovers when the disk does (docs/durability.md, "When
/// the disk fails").
///
/// Mounting a tmpfs needs root (CAP_SYS_ADMIN); CI runs as root, so these run there. Elsewhere they are skipped,
/// and the reason says why.
@Suite(
    "A state folder that is full or read-only",
    .enabled(if: getuid() == 0, "mounts a tmpfs over the sessions folder, which needs root")
)
struct DaemonStorageFailureTests {
    /// A tmpfs of 256 KiB (or `size`) over `<state>/sessions` (or the folder given), unmounted by ``unmount()``.
    struct TinyFileSystem {
        let path: String

        init(at path: String, size: String = "256k") async throws {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let mounted = try await ChildProcess.run(
                "/bin/mount",
                ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path]
            )
            try #require(mounted.status == 0, "mount: \(mounted.errors)")
            self.path = path
        }

        /// Fills it: a file takes every byte that is left.
        func fill() async throws {
            _ = try await ChildProcess.run("/bin/dd", ["if=/dev/zero", "of=\(path)/filler", "bs=4096"])
        }

        func free() throws { try FileManager.default.removeItem(atPath: "\(path)/filler") }

        /// Gives back `kibibytes` of a filled one.
        func leave(kibibytes: Int) async throws {
            let shrunk = try await ChildProcess.run("/usr/bin/truncate", ["-s", "-\(kibibytes)K", "\(path)/filler"])
            try #require(shrunk.status == 0, "truncate: \(shrunk.errors)")
        }

        func remount(readOnly: Bool) async throws {
            let result = try await ChildProcess.run(
                "/bin/mount",
                ["-o", readOnly ? "remount,ro" : "remount,rw", path]
            )
            try #require(result.status == 0, "remount: \(result.errors)")
        }

        /// Detaches it at once (MNT_DETACH), so a test that failed half-way leaves no mount behind.
        func unmount() { _ = umount2(path, 2) }
    }

    @Test("A full disk: StorageFailed, the stack and the filter as before for readers and watchers, recovery after")
    func fullDisk() async throws {
        let (daemon, disk, nav) = try await Self.daemonOnTinyDisk()
        defer { disk.unmount() }
        try await Self.waitUntilLoaded(nav)
        try await nav.call("Send", ["intent": "onChangedFilter", "arguments": ["text": "lamp"]])
        try await disk.fill()
        // The journal's file was made whole by its first line: changes are saved in it until it is full; the first
        // that needs a new snapshot (a new file) fails, and so does each after it.
        let saved = try await Self.changesUntilStorageFails(nav)
        #expect(saved > 0, "the journal's file has room for lines on a full disk")
        print("full disk: \(saved) filter changes saved in the journal's file before the first StorageFailed")
        let before = try await DaemonDurabilityTests.durable(of: "main", through: nav)
        let watch = WatchRecorder(try await NavigationClient.connect(to: daemon).watch())
        _ = try await watch.next()

        // Each on a loaded list: a screen built again by a take-back loads afresh, and an intent it gets before its
        // products are there changes nothing (and so needs no write).
        var failures: [VarlinkError?] = []
        failures.append(try await Self.failure(of: await nav.call("Navigate", ["route": "settings.main"])))
        try await Self.waitUntilLoaded(nav)
        failures.append(
            try await Self.failure(
                of: await nav.call("Send", ["intent": "onChangedFilter", "arguments": ["text": "desk"]])
            )
        )
        try await Self.waitUntilLoaded(nav)
        failures.append(
            try await Self.failure(
                of: await nav.call("Send", ["intent": "onTappedProduct", "arguments": ["productID": "p1"]])
            )
        )
        for (index, failure) in failures.enumerated() {
            #expect(
                failure?.name == "io.navhost.Navigation.StorageFailed",
                "call \(index): \(String(describing: failure))"
            )
            #expect(
                failure?.parameters["reason"]?.stringValue?.contains("No space left on device") == true,
                "call \(index): \(String(describing: failure))"
            )
        }
        let after = try await DaemonDurabilityTests.durable(of: "main", through: nav)
        #expect(after == before, "readers see the state as it was: \(after)")
        try await Task.sleep(for: .milliseconds(200))
        let heard = watch.all.map { (try? JSONValue.object($0).serializedString()) ?? "" }
        #expect(
            !heard.contains { $0.contains("settings.main") || $0.contains("products.detail") || $0.contains("desk") }
        )
        #expect(daemon.log.contains("Cannot save a session's state; its unsaved changes were taken back"))

        // Space comes back: the next change is saved, and survives a crash.
        try disk.free()
        try await nav.call("Navigate", ["route": "settings.main"])
        try await daemon.crash()
        try await daemon.restart()
        let restarted = try await NavigationClient.connect(to: daemon)
        #expect(try await restarted.routes() == ["home.main", "products.list", "settings.main"])
        // The filter changes acknowledged on the full disk were durable: the list under it comes back with the last.
        try await restarted.call("Pop")
        #expect(try await DaemonDurabilityTests.durable(of: "main", through: restarted) == before)
        #expect(try await daemon.terminate() == 0)
    }

    @Test("A replay a full disk refuses half-way leaves no session behind, after a kill -9 and a restart neither")
    func replayRefusedHalfWay() async throws {
        let (daemon, disk, nav) = try await Self.daemonOnTinyDisk()
        defer { disk.unmount() }
        // Calls whose records are large: a profile of a 30,000-character user ID, shown and closed twelve times.
        let userID = JSONValue.string(String(repeating: "u", count: 30_000))
        for _ in 0..<12 {
            try await nav.call("Navigate", ["route": "profile.user", "parameters": ["userID": userID]])
            try await nav.call("Pop")
        }
        let recording = try #require(try await nav.call("Recording")["recording"])
        // Room for the replay's session to open and for its first records, not for all of them.
        try await disk.fill()
        try await disk.leave(kibibytes: 60)
        let failure = try await Self.failure(of: await nav.call("Replay", ["recording": recording, "session": "rp"]))
        #expect(failure?.name == "io.navhost.Navigation.StorageFailed", "\(String(describing: failure))")
        // Refused half-way: its session had opened (a failure to open takes nothing out).
        #expect(daemon.log.contains("Opened session to replay a recording"), "\(daemon.log)")
        // Before, the session stayed open at a half-replayed stack, and listed: a restart opened it again.
        #expect(try await nav.call("Sessions")["sessions"] == ["main"])
        try await daemon.crash()
        try disk.free()
        try await daemon.restart()
        let restarted = try await NavigationClient.connect(to: daemon)
        #expect(try await restarted.call("Sessions")["sessions"] == ["main"])
        #expect(try await daemon.terminate() == 0)
    }

    @Test("A read-only disk: StorageFailed naming it, nothing changed, recovery once it is writable again")
    func readOnlyDisk() async throws {
        let (daemon, disk, nav) = try await Self.daemonOnTinyDisk()
        defer { disk.unmount() }

        try await disk.remount(readOnly: true)
        let failure = try await Self.failure(of: await nav.call("Pop"))
        #expect(failure?.name == "io.navhost.Navigation.StorageFailed")
        #expect(
            failure?.parameters["reason"]?.stringValue?.contains("Read-only file system") == true,
            "\(String(describing: failure))"
        )
        #expect(try await nav.routes() == ["home.main", "products.list"], "the pop was taken back")

        try await disk.remount(readOnly: false)
        try await nav.call("Pop")
        try await daemon.crash()
        try await daemon.restart()
        #expect(try await NavigationClient.connect(to: daemon).routes() == ["home.main"])
        #expect(try await daemon.terminate() == 0)
    }

    @Test(
        "A state folder that cannot be written at start: said in the log and STATUS=, plugins served, changes refused"
    )
    func unwritableAtStart() async throws {
        let state = try TestPaths.temporaryDirectory() + "/state"
        let disk = try await TinyFileSystem(at: state)
        defer { disk.unmount() }
        try await disk.remount(readOnly: true)
        let daemon = try await DaemonProcess.start(stateDirectory: state)
        #expect(daemon.log.contains("The state folder cannot be written"), "\(daemon.log)")
        let ready = try #require(daemon.notifications.first { $0.contains("READY=1") })
        #expect(ready.contains("4 plugins loaded, 0 quarantined"), "the plugins load from their own folders: \(ready)")
        #expect(ready.contains("state folder not writable") && ready.contains("Read-only file system"), "\(ready)")
        let nav = try await NavigationClient.connect(to: daemon)
        let failure = try await Self.failure(of: await nav.call("Navigate", ["route": "settings.main"]))
        #expect(failure?.name == "io.navhost.Navigation.StorageFailed")
        #expect(try await nav.routes() == ["home.main"])

        // Mended, then broken again: each reload checks the folder anew, and STATUS= follows (before, it kept what
        // the start had found, either way).
        try await disk.remount(readOnly: false)
        var count = daemon.notifications.count
        daemon.send(signal: SIGHUP)
        let mended = try await daemon.waitFor("READY=1", after: count)
        #expect(!mended.contains("state folder not writable"), "\(mended)")
        #expect(daemon.log.contains("The state folder can be written again"), "\(daemon.log)")
        try await nav.call("Navigate", ["route": "settings.main"])
        try await disk.remount(readOnly: true)
        count = daemon.notifications.count
        daemon.send(signal: SIGHUP)
        let broken = try await daemon.waitFor("READY=1", after: count)
        #expect(broken.contains("state folder not writable"), "\(broken)")
        #expect(try await daemon.terminate() == 0)
    }

    /// A daemon whose sessions folder is a fresh ``TinyFileSystem``, and a client that has pushed the product list.
    static func daemonOnTinyDisk() async throws -> (DaemonProcess, TinyFileSystem, NavigationClient) {
        let state = try TestPaths.temporaryDirectory() + "/state"
        let disk = try await TinyFileSystem(at: "\(state)/sessions")
        let daemon = try await DaemonProcess.start(stateDirectory: state)
        let nav = try await NavigationClient.connect(to: daemon)
        try await nav.call("Navigate", ["route": "products.list"])
        return (daemon, disk, nav)
    }

    /// More filter changes than a journal's file holds: 72 KiB (`SessionStateFile.journalCapacity`), and a line
    /// longer than 100 bytes.
    private static let mostChangesOnFullDisk = 750

    /// Sends changes of the catalog's filter until one fails, which must be `StorageFailed` for a full disk, and
    /// returns how many were acknowledged before it.
    private static func changesUntilStorageFails(_ nav: NavigationClient) async throws -> Int {
        for index in 0..<Self.mostChangesOnFullDisk {
            let arguments: JSONValue = ["text": .string("lamp \(index)")]
            let failure = try await Self.failure(
                of: await nav.call("Send", ["intent": "onChangedFilter", "arguments": arguments])
            )
            guard let failure else { continue }
            #expect(failure.name == "io.navhost.Navigation.StorageFailed", "\(failure)")
            #expect(
                failure.parameters["reason"]?.stringValue?.contains("No space left on device") == true,
                "\(failure)"
            )
            try await waitUntilLoaded(nav)
            return index
        }
        Issue.record("\(mostChangesOnFullDisk) changes were saved on a full disk")
        return mostChangesOnFullDisk
    }

    /// The Varlink error `call` failed with, or `nil` when it succeeded.
    static func failure(of call: @autoclosure () async throws -> JSONObject) async throws -> VarlinkError? {
        do {
            _ = try await call()
            return nil
        } catch let error as VarlinkError {
            return error
        }
    }

    static func waitUntilLoaded(_ nav: NavigationClient) async throws {
        _ = try await pollUntil { try await nav.topState()["status"] == "loaded" }
    }
}
