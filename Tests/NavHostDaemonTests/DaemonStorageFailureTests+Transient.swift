import Foundation
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

// A disk that fails for a while and comes back: what a call answered with an error changed must not reach the disk
// later, nor after a kill -9; and what the daemon gave out while the disk refused stays true after a restart.

extension DaemonStorageFailureTests {
    @Test("A journal's first line cut short by a full disk: StorageFailed, and after kill -9 the push is not there")
    func firstJournalLineOnFullDisk() async throws {
        let (daemon, disk, nav) = try await Self.daemonOnTinyDisk()
        defer { disk.unmount() }
        // A session's first record is a snapshot; its second write is the first line of a new journal, with the
        // zeros that make the file 72 KiB long: two pages of room take the line, not the zeros.
        try await nav.call("OpenSession", ["name": "fresh", "root": "home.main"])
        let journal = "\(disk.path)/fresh.journal"
        #expect(FileManager.default.fileExists(atPath: "\(disk.path)/fresh.json"), "the first write is a snapshot")
        #expect(!FileManager.default.fileExists(atPath: journal), "no journal line is written yet")
        try await disk.fill()
        try await disk.leave(kibibytes: 8)
        let failure = try await Self.failure(
            of: await nav.call("Navigate", ["session": "fresh", "route": "settings.main"])
        )
        #expect(failure?.name == "io.navhost.Navigation.StorageFailed", "\(String(describing: failure))")
        // The write that failed was the journal's first line: the session had no journal before it.
        let reason = failure?.parameters["reason"]?.stringValue ?? ""
        #expect(reason.contains("fresh.journal"), "the failed write was the journal's: \(reason)")
        #expect(try await nav.routes(session: "fresh") == ["home.main"], "the push was taken back")
        try await daemon.crash()
        try disk.free()
        try await daemon.restart()
        let restarted = try await NavigationClient.connect(to: daemon)
        // Before, the line was in the file, whole, zeros missing after it: the restart read the refused push.
        #expect(try await restarted.routes(session: "fresh") == ["home.main"], "the refused push is not on disk")
        #expect(try await daemon.terminate() == 0)
    }

    @Test("Revisions given out while the disk refuses the revision reservation are not given out again after kill -9")
    func revisionsBeyondTheReservation() async throws {
        let (daemon, disk) = try await Self.faultyDaemonOnTinyDisk()
        defer { disk.unmount() }
        let nav = try await NavigationClient.connect(to: daemon)
        let watch = WatchRecorder(try await NavigationClient.connect(to: daemon).watch())
        _ = try await watch.next()
        // Each `onTappedCount` changes the ViewModel's count, which is not kept: a revision, and nothing to write but
        // the revision reservation, once per 1,024 revisions (the record reserves the block after its own).
        try await disk.remount(readOnly: true)
        var highest: Int64 = 0
        var refused = 0
        for _ in 0..<2_100 {
            do {
                let reply = try await nav.call("Send", ["intent": "onTappedCount"])
                highest = max(highest, reply.revision ?? 0)
            } catch let error as VarlinkError {
                #expect(error.name == "io.navhost.Navigation.StorageFailed", "\(error)")
                refused += 1
            }
        }
        let before = try await nav.snapshot()
        try await daemon.crash()
        let heard =
            watch.all.compactMap { ($0["event"]?["revision"] ?? $0["snapshot"]?["revision"])?.intValue }.max() ?? 0
        print("revisions on a read-only disk: highest answered \(highest), heard \(heard), \(refused) refused")
        try await disk.remount(readOnly: false)
        try await daemon.restart()
        let restarted = try await NavigationClient.connect(to: daemon)
        // The restored session starts at the reservation, with the state on disk: that revision was not given out.
        let restored = try await restarted.snapshot()["revision"]?.intValue ?? 0
        #expect(restored > highest, "answered \(highest) before the crash, restored at \(restored)")
        #expect(refused > 0, "no Send was refused: the reservation was never reached")
        let next = try await restarted.call("Send", ["intent": "onTappedCount"])
        // Before, the highest was 2,100, the restart started at the 2,048 the disk held, and gave 2,049 again.
        #expect((next.revision ?? 0) > highest, "answered \(highest) before the crash, \(next) after; \(before)")
        #expect((next.revision ?? 0) > heard, "a watcher heard \(heard) before the crash, \(next) after")
        #expect(try await daemon.terminate() == 0)
    }
}

extension DaemonStorageFailureTests {
    @Test("An OpenSession refused for a full disk stays out of the list that another call writes after it")
    func refusedOpenStaysOutOfTheList() async throws {
        let state = try TestPaths.temporaryDirectory() + "/state"
        // The whole state folder, the list of opened sessions in it, on a tmpfs with room for the plugins' copies.
        let disk = try await TinyFileSystem(at: state, size: "256m")
        defer { disk.unmount() }
        let daemon = try await DaemonProcess.start(
            plugins: try await TestPlugins.directory(fixtures: ["FaultPlugin"]),
            stateDirectory: state,
            sessions: ["main=faulty.main"]
        )
        // A session whose entry makes the list 30 KB long: with 12 KiB left, a list that holds it cannot be written,
        // one without it can.
        let big: JSONObject = [
            "name": "big", "root": "profile.user",
            "parameters": ["userID": .string(String(repeating: "u", count: 30_000))],
        ]
        var exercised = 0
        var rounds = 0
        var listed: [String] = []
        // Until the order it needs came twice: it comes in about one round of four.
        for round in 0..<Self.openRounds where exercised < Self.openRoundsExercised {
            rounds += 1
            let nav = try await NavigationClient.connect(to: daemon)
            _ = try? await nav.call("OpenSession", big)
            // Connected before the main thread is held: the calls below are then read together once it lets go.
            let (holder, opener, closer) = (
                try await Self.rawConnection(to: daemon), try await Self.rawConnection(to: daemon),
                try await Self.rawConnection(to: daemon)
            )
            try await disk.fill()
            try await disk.leave(kibibytes: 12)
            _ = await holder.write(try Self.frames([("Send", ["intent": "onTappedHold"])]))
            try await Task.sleep(for: .milliseconds(200))
            // Read in this order after the hold: the OpenSession queues its list (with `big`, too long), then the
            // other connection's OpenSession fails (no such route) after the same wait, and its CloseSession of
            // `big` writes the list without `big`, with the first call's session in it, before that call learns
            // that its own write failed.
            let name = "opened\(round)"
            _ = await opener.write(try Self.frames([("OpenSession", ["name": .string(name), "root": "home.main"])]))
            _ = await closer.write(
                try Self.frames([
                    ("OpenSession", ["name": .string("nowhere\(round)"), "root": "no.such"]),
                    ("CloseSession", ["name": "big"]),
                ])
            )
            let opened = try await opener.readMessages(1).first ?? ""
            _ = try await closer.readMessages(2)
            _ = try await holder.readMessages(1)
            try disk.free()
            guard opened.contains("io.navhost.Navigation.StorageFailed") else {
                // Another order (the OpenSession found `big` gone): nothing refused to check.
                if !opened.contains("error") { try await nav.call("CloseSession", ["name": .string(name)]) }
                continue
            }
            exercised += 1
            try await daemon.crash()
            try await daemon.restart()
            let sessions = try await NavigationClient.connect(to: daemon).call("Sessions")["sessions"]
            if sessions?.arrayValue?.contains(.string(name)) == true {
                listed.append(
                    "round \(round): \(name), refused, is open after kill -9: \(String(describing: sessions))"
                )
            }
        }
        print(
            "refused OpenSessions: \(exercised) of \(rounds) rounds refused, \(listed.count) open after kill -9"
        )
        #expect(exercised > 0, "no round refused the OpenSession")
        #expect(listed.isEmpty, "\(listed)")
        #expect(try await daemon.terminate() == 0)
    }

    /// The most rounds of ``refusedOpenStaysOutOfTheList()``: the order it needs comes in about one round of four, so
    /// that 24 rounds without it are a chance of 1 in 1,000 (with 4 rounds, as before, about 1 in 3).
    static let openRounds = 24
    /// The rounds of ``refusedOpenStaysOutOfTheList()`` in that order after which it stops.
    static let openRoundsExercised = 2

    /// A raw connection to the daemon, accepted: a call made and answered through it.
    static func rawConnection(to daemon: DaemonProcess) async throws -> UnixStreamSocket {
        let socket = try await UnixStreamSocket.connect(to: daemon.socketPath)
        _ = await socket.write(try frames([("Sessions", [:])]))
        _ = try await socket.readMessages(1)
        return socket
    }

    /// Calls of `io.navhost.Navigation` as the bytes of one write, pipelined.
    static func frames(_ calls: [(method: String, parameters: JSONObject)]) throws -> String {
        var text = ""
        for call in calls {
            let message: JSONObject = [
                "method": .string("io.navhost.Navigation.\(call.method)"), "parameters": .object(call.parameters),
            ]
            text += String(decoding: try JSONValue.object(message).serializedBytes(), as: UTF8.self) + "\0"
        }
        return text
    }
}

extension DaemonStorageFailureTests {
    @Test("A change refused for a full disk is not written by a record another client queued before it was taken back")
    func refusedChangeStaysOffTheDisk() async throws {
        let (daemon, disk) = try await Self.faultyDaemonOnTinyDisk()
        defer { disk.unmount() }
        let long = JSONValue.string(String(repeating: "f", count: 30_000))
        var exercised = 0
        var kept: [String] = []
        for round in 0..<2 {
            let session = JSONValue.string("r\(round)")
            var nav = try await NavigationClient.connect(to: daemon)
            try await nav.call("OpenSession", ["name": session, "root": "home.main"])
            try await nav.call("Navigate", ["session": session, "route": "products.list"])
            try await DaemonDurabilityTests.waitUntilLoaded(nav, session: "r\(round)")
            try await nav.call("Send", ["session": session, "intent": "onChangedFilter", "arguments": ["text": long]])
            let list = try await nav.snapshot(session: "r\(round)")["stack"]?.arrayValue?.last?["id"] ?? .null
            // After a start the session's next write is a snapshot: 30 KB with the long filter, which the room left
            // does not take, 1 KB with a short one, which it does. Its journal gone, a line after that snapshot needs
            // a new file, which the room left does not take either.
            try await daemon.crash()
            try await daemon.restart()
            nav = try await NavigationClient.connect(to: daemon)
            try FileManager.default.removeItem(atPath: "\(daemon.stateDirectory)/sessions/r\(round).journal")
            let (holder, pusher, other) = (
                try await Self.rawConnection(to: daemon), try await Self.rawConnection(to: daemon),
                try await Self.rawConnection(to: daemon)
            )
            try await disk.fill()
            try await disk.leave(kibibytes: 12)
            _ = await holder.write(try Self.frames([("Send", ["intent": "onTappedHold"])]))
            try await Task.sleep(for: .milliseconds(200))
            // Read together once the main thread is free: the push's write fails while the second hold runs; then
            // the filter change, after the hold on the same connection, takes a record that holds the push, before
            // the push's failure has taken it back.
            _ = await pusher.write(try Self.frames([("Navigate", ["session": session, "route": "settings.main"])]))
            _ = await other.write(
                try Self.frames([
                    ("Send", ["intent": "onTappedHold"]),
                    (
                        "Send",
                        ["session": session, "screen": list, "intent": "onChangedFilter", "arguments": ["text": "s"]]
                    ),
                ])
            )
            let pushed = try await pusher.readMessages(1).first ?? ""
            let answers = try await other.readMessages(2)
            _ = try await holder.readMessages(1)
            guard pushed.contains("io.navhost.Navigation.StorageFailed") else {
                try disk.free()
                continue
            }
            exercised += 1
            try await daemon.crash()
            try disk.free()
            try await daemon.restart()
            let routes = try await NavigationClient.connect(to: daemon).routes(session: "r\(round)")
            if routes.contains("settings.main") {
                kept.append("round \(round): the refused push is on disk: \(routes); the filter's answer: \(answers)")
            }
        }
        print("refused changes: \(exercised) of 2 rounds refused the push, \(kept.count) of them on disk after kill -9")
        #expect(exercised > 0, "no round refused the push")
        #expect(kept.isEmpty, "\(kept)")
        #expect(try await daemon.terminate() == 0)
    }
}

extension DaemonStorageFailureTests {
    /// A daemon serving the Faulty fixture's `faulty.main` as session `main`, its sessions folder on a tiny tmpfs
    /// (``TinyFileSystem``), which the caller unmounts.
    fileprivate static func faultyDaemonOnTinyDisk() async throws -> (DaemonProcess, TinyFileSystem) {
        let state = try TestPaths.temporaryDirectory() + "/state"
        let disk = try await TinyFileSystem(at: "\(state)/sessions")
        do {
            let daemon = try await DaemonProcess.start(
                plugins: try await TestPlugins.directory(fixtures: ["FaultPlugin"]),
                stateDirectory: state,
                sessions: ["main=faulty.main"]
            )
            return (daemon, disk)
        } catch {
            disk.unmount()
            throw error
        }
    }
}
