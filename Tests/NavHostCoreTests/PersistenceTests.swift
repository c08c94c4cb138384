import Foundation
import InMemoryLogging
import IntegrationHarness
import Logging
import NavHostCore
import NavHostKit
import NavHostStorage
import NavHostTesting
import Synchronization
import Testing

@MainActor
@Suite("Sessions survive a restart")
struct PersistenceTests {
    let directory: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("navhost-persist-\(UUID())").path
    }

    func makeRegistry(
        features: [any FeatureModule]? = nil,
        logger: Logger = Logger(label: "test")
    ) throws -> SessionRegistry {
        let catalog = try FeatureCatalog.holding(features ?? [ProfileFeature(), DraftFeature()])
        return SessionRegistry(
            catalog: catalog,
            persistence: SessionPersistence(directory: directory),
            logger: logger
        )
    }

    let main = SessionConfiguration(root: RouteRequest(id: "profile.user", parameters: ["userID": "root"]))

    @Test("The stack, its screen IDs and restorable state come back after a restart")
    func roundTrip() async throws {
        let first = try makeRegistry()
        let session = try first.open(main)
        try session.navigate(to: RouteRequest(id: "profile.user", parameters: ["userID": "u2"]))
        let draft = try session.navigate(to: RouteRequest(id: "draft.editor", parameters: ["documentID": "d1"]))
        try await session.send(IntentMessage(name: "onChangedText", arguments: ["text": "hello"]))
        try await first.commit(session)
        let before = session.snapshot

        let second = try makeRegistry()
        let restored = try second.open(main)
        #expect(second.restoreNotes["main"] == .restored(dropped: []))
        #expect(restored.snapshot.stack.map(\.id) == before.stack.map(\.id))
        #expect(restored.snapshot.stack.map(\.route) == before.stack.map(\.route))
        #expect(restored.revision > before.revision, "revisions only grow, across restarts too")
        let restoredDraft = try restored.screenSnapshot(ScreenID("s3"))
        guard case .pushed(let pushed) = draft.event.change else {
            Issue.record("navigating recorded \(draft.event.change), not a push")
            return
        }
        #expect(restoredDraft.id == pushed.id)
        #expect(restoredDraft.state["text"] == "hello", "the draft was handed back before onAppear")
        let next = try restored.navigate(to: RouteRequest(id: "profile.user", parameters: ["userID": "u9"]))
        guard case .pushed(let newScreen) = next.event.change else {
            Issue.record("navigating recorded \(next.event.change), not a push")
            return
        }
        #expect(newScreen.id == ScreenID("s4"), "screen IDs are not reused after a restart")
    }

    /// navhostd lets the writer poll after each write as its loop polls after a read (SessionHandOff): a session
    /// queued meanwhile is handed to the writer instead of to a block of its own. Its records must land all the same,
    /// and a wait for the queued writes must end the polling rather than wait out the window.
    @Test(
        "A writer that polls after a write writes the sessions handed to it, and a wait for queued writes ends it",
        .timeLimit(.minutes(1))
    )
    func pollingWriterWritesHandedSessions() async throws {
        let persistence = SessionPersistence(directory: directory)
        persistence.setWriterPollWindow(.seconds(600))
        // Or a test that throws half-way leaves the writer polling a CPU for 10 minutes.
        defer { persistence.setWriterPollWindow(nil) }
        let first = SessionRegistry(
            catalog: try FeatureCatalog.holding([ProfileFeature(), DraftFeature()]),
            persistence: persistence,
            logger: Logger(label: "test")
        )
        let root = RouteRequest(id: "profile.user", parameters: ["userID": "root"])
        let one = try first.open(SessionConfiguration(name: "one", root: root))
        let two = try first.open(SessionConfiguration(name: "two", root: root))
        try one.navigate(to: RouteRequest(id: "profile.user", parameters: ["userID": "u1"]))
        try await first.commit(one)
        try await waitUntil { persistence.writerPolls }
        try two.navigate(to: RouteRequest(id: "profile.user", parameters: ["userID": "u2"]))
        try await first.commit(two)
        try one.navigate(to: RouteRequest(id: "profile.user", parameters: ["userID": "u3"]))
        try await first.commit(one)
        #expect(persistence.sessionsHandedToTheWriter >= 2, "both commits were written by the polling writer")
        await persistence.waitForQueuedWrites()

        let second = try makeRegistry()
        let users = { (session: NavigationSession) in session.snapshot.stack.map { $0.route.parameters["userID"] } }
        #expect(users(try second.open(SessionConfiguration(name: "one", root: root))) == ["root", "u1", "u3"])
        #expect(users(try second.open(SessionConfiguration(name: "two", root: root))) == ["root", "u2"])
    }

    /// A background save (a ViewModel's own change) answers no caller: no client is about to call again, and a writer
    /// that polled after it would spend a CPU for nothing.
    @Test("The writer does not poll after a write that no caller waited on", .timeLimit(.minutes(1)))
    func noPollingAfterABackgroundSave() async throws {
        let persistence = SessionPersistence(directory: directory)
        persistence.setWriterPollWindow(.seconds(600))
        defer { persistence.setWriterPollWindow(nil) }
        let record = { (session: String) in
            SessionRecord(
                session: session,
                revision: 1,
                nextScreenNumber: 2,
                stack: [
                    .init(
                        id: ScreenID("s1"),
                        route: "profile.user",
                        parameters: ["userID": "r"],
                        presentation: .push,
                        restorable: nil
                    )
                ]
            )
        }
        persistence.submit(record("background"))
        await persistence.writesLand(of: "background")
        // A writer that polled would be polling by now, and take the next save by hand-off.
        try await Task.sleep(for: .milliseconds(20))
        try await persistence.save(record("client"))
        #expect(persistence.sessionsHandedToTheWriter == 0, "the client's save had a block of its own")
        try await waitUntil { persistence.writerPolls }
        try await persistence.save(record("next"))
        #expect(persistence.sessionsHandedToTheWriter == 1, "after the client's write, the writer polled")
    }

    /// A change no client waits on is saved in the background; a client's change of restorable state alone (no new
    /// revision) made meanwhile was acknowledged, then overwritten by the older record of the same revision.
    @Test("A background save never overwrites a newer record of the same revision that a client was answered for")
    func backgroundSaveKeepsTheAcknowledgedRecord() async throws {
        let root = SessionConfiguration(root: RouteRequest(id: "hidden.draft"))
        let persistence = SessionPersistence(directory: directory)
        let first = SessionRegistry(
            catalog: try FeatureCatalog.holding([HiddenDraftFeature()]),
            persistence: persistence,
            logger: .init(label: "test")
        )
        let session = try first.open(root)
        try await first.commit(session)
        // A push: its event's background save is queued. Before it runs, a restorable-only change, committed.
        try session.navigate(to: RouteRequest(id: "hidden.draft"))
        let pushed = try #require(HiddenDraftViewModel.last)
        pushed.text = "acknowledged"
        try await first.commit(session)
        await Task.yield()
        await persistence.waitForQueuedWrites()

        let second = try makeRegistry(features: [HiddenDraftFeature()])
        let restored = try second.open(root)
        #expect(restored.routeIDs == ["hidden.draft", "hidden.draft"])
        #expect(HiddenDraftViewModel.last?.text == "acknowledged")
    }

    /// A client could reach a session opened over the wire (by name, or from `Sessions`) before the list of opened
    /// sessions held it: a change answered then was lost by a crash before the list's write.
    @Test("A session opened over the wire is listed on disk before any client can reach it")
    func openedSessionIsListedBeforeItIsReachable() async throws {
        let list = OpenedSessionsFile(directory: directory)
        let registry = SessionRegistry(
            catalog: try FeatureCatalog.holding([ProfileFeature(), DraftFeature()]),
            persistence: SessionPersistence(directory: directory),
            openedSessions: list,
            logger: .init(label: "test")
        )
        let opening = Task {
            try await registry.openDurably(
                OpenedSessionsFile.Entry(name: "second", root: "profile.user", parameters: ["userID": "u1"])
            )
        }
        var listedWhenReachable: Bool?
        // Until it is reachable (a deadline, not a count of turns: the list's write waits for the disk).
        let deadline = ContinuousClock.now + .seconds(30)
        while listedWhenReachable == nil, ContinuousClock.now < deadline {
            if (try? registry.session("second")) != nil {
                let entries = try list.load().get()
                listedWhenReachable = entries.contains { $0.name == "second" }
            }
            await Task.yield()
        }
        _ = try await opening.value
        #expect(listedWhenReachable == true)
    }

    /// A reload (SIGHUP) runs while an OpenSession or a CloseSession waits for the list of opened sessions to be
    /// written; when it declares that name, the call answered for a session that was not its own. The test acts in
    /// that wait; on a busy machine the write may be over before it gets a turn, and it tries again with a new name.
    @Test("A reload that declares a name while OpenSession of it writes the list wins: the call is refused")
    func reloadDeclaringTheNameDuringOpenSessionWins() async throws {
        let registry = try makeListingRegistry()
        for attempt in 1...20 {
            let name = "kiosk\(attempt)"
            let opening = Task {
                try await registry.openDurably(
                    OpenedSessionsFile.Entry(name: name, root: "profile.user", parameters: ["userID": "wire"])
                )
            }
            try await waitUntil { registry.opened[name] != nil }
            guard (try? registry.session(name)) == nil else {
                _ = try await opening.value
                continue
            }

            // What the reload does (DaemonCore.apply): declare the configured names, then open their sessions.
            registry.declareConfiguredSessions([name])
            let configured = try registry.open(
                SessionConfiguration(name: name, root: RouteRequest(id: "profile.user", parameters: ["userID": "conf"]))
            )

            let refused = await #expect(throws: NavigationError.self) { try await opening.value }
            #expect(refused?.code == .sessionConfigured)
            #expect(try registry.session(name) === configured)
            #expect(configured.snapshot.stack.map(\.route.parameters) == [["userID": "conf"]])
            let notClosed = await #expect(throws: NavigationError.self) { try await registry.closeDurably(name) }
            #expect(notClosed?.code == .sessionConfigured)
            #expect(try registry.session(name) === configured, "the configuration's session stays")
            return
        }
        Issue.record("the list's write was over before the test had a turn, 20 times")
    }

    @Test("A reload that declares a name while CloseSession of it writes the list wins: the session stays, refused")
    func reloadDeclaringTheNameDuringCloseSessionWins() async throws {
        let registry = try makeListingRegistry()
        for attempt in 1...20 {
            let name = "kiosk\(attempt)"
            let session = try await registry.openDurably(
                OpenedSessionsFile.Entry(name: name, root: "profile.user", parameters: ["userID": "wire"])
            )
            let closing = Task { try await registry.closeDurably(name) }
            try await waitUntil { registry.opened[name] == nil }
            guard (try? registry.session(name)) === session else {
                try await closing.value
                continue
            }

            registry.declareConfiguredSessions([name])

            let refused = await #expect(throws: NavigationError.self) { try await closing.value }
            #expect(refused?.code == .sessionConfigured)
            #expect(try registry.session(name) === session, "the session is the configuration's now, and stays")
            return
        }
        Issue.record("the list's write was over before the test had a turn, 20 times")
    }

    @Test("A reload that declares a name while CloseSession empties its record gets the configuration's session after")
    func reloadDeclaringTheNameWhileTheRecordIsEmptied() async throws {
        // The emptied record's write is held, so the reload comes while it is under way: a poll for the short stretch
        // between the close and the end of that write missed it on a loaded machine (the whole close ran between two
        // of the poll's turns, and it waited for a busy name that never came again).
        let disk = FaultyDiskWrites()
        let registry = try makeListingRegistry(writes: disk)
        // What the daemon sets: open the configuration's sessions that are not open.
        let declared = Mutex<[String]>([])
        registry.openConfiguredSessions = {
            for name in declared.withLock({ $0 }) where (try? registry.session(name)) == nil && !registry.isBusy(name) {
                _ = try? registry.open(
                    SessionConfiguration(
                        name: name,
                        root: RouteRequest(id: "profile.user", parameters: ["userID": "conf"])
                    )
                )
            }
        }
        let name = "kiosk"
        let session = try await registry.openDurably(
            OpenedSessionsFile.Entry(name: name, root: "profile.user", parameters: ["userID": "wire"])
        )
        try session.navigate(to: RouteRequest(id: "profile.user", parameters: ["userID": "u2"]))
        try await registry.commit(session)
        // The close writes the list without the session, then the session's emptied record: the next write of its files.
        disk.holdTheWrite(1, toFilesOf: name)
        let closing = Task { try await registry.closeDurably(name) }
        try await waitUntil { disk.isHolding }
        #expect((try? registry.session(name)) == nil, "closed before its record is emptied")
        #expect(registry.isBusy(name), "the name is the close's until its record is emptied")

        // The reload: the name is declared; its session is the busy call's to settle.
        registry.declareConfiguredSessions([name])
        declared.withLock { $0.append(name) }
        registry.openConfiguredSessions?()
        #expect((try? registry.session(name)) == nil, "not opened from the record being emptied")

        disk.release()
        try await closing.value
        let configured = try registry.session(name)
        #expect(configured.snapshot.stack.map(\.route.parameters) == [["userID": "conf"]], "at its own root")
    }

    /// A registry that lists the sessions opened over the wire, its files written through `writes`.
    private func makeListingRegistry(writes: any SessionFileWrites = DiskWrites()) throws -> SessionRegistry {
        SessionRegistry(
            catalog: try FeatureCatalog.holding([ProfileFeature(), DraftFeature()]),
            persistence: SessionPersistence(directory: directory, writes: writes),
            openedSessions: OpenedSessionsFile(directory: directory, writes: writes),
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
    }

    /// Gives other tasks of the main actor turns until `condition` holds (a deadline, not a count of turns: a write
    /// waits for the disk).
    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TimedOut(what: "the condition") }
            await Task.yield()
        }
    }

    @Test("Once shut down, the registry opens no listed session again, and OpenSession and CloseSession are refused")
    func shutDownOpensNothing() async throws {
        let list = OpenedSessionsFile(directory: directory)
        let make = {
            SessionRegistry(
                catalog: try FeatureCatalog.holding([ProfileFeature(), DraftFeature()]),
                persistence: SessionPersistence(directory: directory),
                openedSessions: list,
                logger: .init(label: "test")
            )
        }
        let registry = try make()
        try await registry.openDurably(
            OpenedSessionsFile.Entry(name: "kiosk", root: "profile.user", parameters: ["userID": "u1"])
        )

        registry.shutDown()
        // A reload during the stop (SIGHUP) reopened the listed sessions.
        registry.openListedSessions()

        #expect(registry.names.isEmpty)
        await #expect(throws: SessionsShutDown.self) {
            try await registry.openDurably(OpenedSessionsFile.Entry(name: "other", root: "profile.user"))
        }
        await #expect(throws: SessionsShutDown.self) { try await registry.closeDurably("kiosk") }
        let next = try make()
        next.loadOpenedList()
        #expect(next.opened.keys.sorted() == ["kiosk"], "the list stays for the next start")
    }

    @Test("A screen whose feature is gone is dropped with everything above it, and the log says why")
    func missingFeatureDropsScreenAndAbove() async throws {
        let first = try makeRegistry()
        let session = try first.open(main)
        try session.navigate(to: RouteRequest(id: "draft.editor", parameters: ["documentID": "d1"]))
        try session.navigate(to: RouteRequest(id: "profile.user", parameters: ["userID": "u3"]))
        try await first.commit(session)

        let second = try makeRegistry(features: [ProfileFeature()])
        let restored = try second.open(main)
        #expect(restored.routeIDs == ["profile.user"])
        guard case .restored(let dropped) = second.restoreNotes["main"] else {
            Issue.record("expected a restore")
            return
        }
        #expect(dropped.map(\.route) == ["draft.editor", "profile.user"])
        #expect(dropped[0].reason.contains("draft.editor"))
        #expect(restored.revision > session.revision, "revisions only grow, across restarts too")
    }

    @Test("A call's commit after the stop closed its session still writes: the record stays for the next start")
    func commitAfterTheStop() async throws {
        let registry = try makeRegistry()
        let session = try registry.open(main)
        try await registry.commit(session)
        try session.navigate(to: RouteRequest(id: "draft.editor", parameters: ["documentID": "d1"]))
        // The stop closes the sessions while this call's continuation waits to resume (its commit comes next).
        registry.shutDown()
        try await registry.commit(session)

        let restored = try makeRegistry().open(main)
        #expect(restored.routeIDs == ["profile.user", "draft.editor"], "answered, so kept")
    }

    @Test("A restorable state that no longer decodes starts its screen fresh; the stack stays, as after a reload")
    func undecodableStateStartsFresh() async throws {
        let file = SessionPersistence(directory: directory).file(for: "main")
        let saved = SessionRecord(
            session: "main",
            revision: 4,
            nextScreenNumber: 3,
            stack: [
                .init(
                    id: ScreenID("s1"),
                    route: "profile.user",
                    parameters: ["userID": "r"],
                    presentation: .push,
                    restorable: nil
                ),
                .init(
                    id: ScreenID("s2"),
                    route: "draft.editor",
                    parameters: ["documentID": "d"],
                    presentation: .push,
                    restorable: ["text": 42]
                ),
            ]
        )
        try file.save(saved)
        let logs = InMemoryLogHandler()
        let registry = try makeRegistry(logger: Logger(label: "test") { _ in logs })
        let restored = try registry.open(main)
        #expect(restored.routeIDs == ["profile.user", "draft.editor"])
        #expect(restored.droppedOnRestore.isEmpty)
        #expect(restored.startedFreshOnRestore == [ScreenID("s2")])
        // The log says why, naming the member, for the author who changed the state's type.
        let warning = logs.entries.first { $0.message.description.contains("no longer decodes") }
        #expect(warning?.metadata["error"].map { "\($0)".contains("text") } == true, "\(logs.entries)")
        #expect(restored.record.stack.map(\.id) == [ScreenID("s1"), ScreenID("s2")], "the IDs a client saw stay")
        #expect(restored.revision == saved.reservedRevision + 1, "the state it held is gone: one more change")
        #expect(restored.record.stack.last?.restorable != ["text": 42], "a new ViewModel's state")
        // The restore is not taken for the record on disk: the next commit writes the fresh state.
        try await registry.commit(restored)
        guard case .record(let onDisk) = try file.load() else {
            Issue.record("no record on disk")
            return
        }
        #expect(onDisk.stack.last?.restorable != ["text": 42])
    }

    @Test("A restart that loses screens keeps the record from before aside, whole: put in place, it brings them back")
    func lostScreensAreKeptAside() async throws {
        let first = try makeRegistry()
        let session = try first.open(main)
        try session.navigate(to: RouteRequest(id: "draft.editor", parameters: ["documentID": "d1"]))
        try await first.commit(session)
        let saved = session.record
        let sessions = "\(directory)/sessions"

        // Started without the feature of the screen on top: it is dropped, and the record from before kept aside.
        let logs = InMemoryLogHandler()
        let without = try makeRegistry(features: [ProfileFeature()], logger: Logger(label: "test") { _ in logs })
        let restored = try without.open(main)
        #expect(restored.routeIDs == ["profile.user"])
        try await without.commit(restored)
        let aside = try FileManager.default.contentsOfDirectory(atPath: sessions).filter {
            $0.hasPrefix("main.json.lost-")
        }
        #expect(aside.count == 1, "\(aside)")
        let warning = logs.entries.first { $0.message.description.contains("kept its record from before aside") }
        #expect(warning?.metadata["navhost.file"].map { "\($0)".hasSuffix(aside.first ?? "-") } == true)

        // Moved into place while stopped, with the feature back: the screen and its state come back.
        try FileManager.default.removeItem(atPath: "\(sessions)/main.json")
        try FileManager.default.moveItem(atPath: "\(sessions)/\(aside[0])", toPath: "\(sessions)/main.json")
        let back = try makeRegistry().open(main)
        #expect(back.routeIDs == ["profile.user", "draft.editor"])
        #expect(back.record.stack == saved.stack)
    }

    @Test(
        "A corrupt, truncated or foreign file is moved aside with a timestamp and the session starts fresh",
        arguments: ["corrupt", "truncated", "checksum", "version", "empty"]
    )
    func untrustedFiles(kind: String) async throws {
        let first = try makeRegistry()
        let session = try first.open(main)
        try session.navigate(to: RouteRequest(id: "draft.editor", parameters: ["documentID": "d1"]))
        try await first.commit(session)
        let path = SessionPersistence(directory: directory).file(for: "main").path
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        switch kind {
        case "corrupt": bytes = Array("{not json at all".utf8)
        case "truncated": bytes = Array(bytes.prefix(bytes.count / 2))
        case "checksum":
            let text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "d1", with: "d2")
            bytes = Array(text.utf8)
        case "version":
            let text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(
                of: "\"version\":2",
                with: "\"version\":99"
            )
            bytes = Array(text.utf8)
        default: bytes = []
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let second = try makeRegistry()
        let restored = try second.open(main)
        #expect(restored.routeIDs == ["profile.user"], "fresh at the configured root")
        guard case .discarded(let reason, let movedTo) = second.restoreNotes["main"] else {
            Issue.record("expected the file to be discarded: \(String(describing: second.restoreNotes["main"]))")
            return
        }
        #expect(reason == (kind == "version" ? .unknownVersion : .corrupt))
        #expect(movedTo.hasPrefix(path + "."))
        #expect(FileManager.default.fileExists(atPath: movedTo), "kept for a person to look at")
        #expect(try Data(contentsOf: URL(fileURLWithPath: movedTo)) == Data(bytes))
    }

    @Test("An intent that changes no restorable state needs no write; one that does is durable when acknowledged")
    func onlyDurableChangesWrite() async throws {
        let registry = try makeRegistry()
        let session = try registry.open(main)
        try session.navigate(to: RouteRequest(id: "draft.editor", parameters: ["documentID": "d1"]))
        try await registry.commit(session)
        let path = SessionPersistence(directory: directory).file(for: "main").path
        let written = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date

        try await session.send(IntentMessage(name: "onTappedNothing"))
        try await registry.commit(session)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date == written)

        try await session.send(IntentMessage(name: "onChangedText", arguments: ["text": "saved"]))
        try await registry.commit(session)
        let onDisk = try SessionPersistence(directory: directory).file(for: "main").load()
        guard case .record(let record) = onDisk else {
            Issue.record("no record on disk")
            return
        }
        #expect(record.stack.last?.restorable == ["text": "saved"])
    }

    @Test("A restorable state that is Equatable is saved at each change, back and forth")
    func equatableRestorableState() async throws {
        let registry = try makeRegistry(features: [ProfileFeature(), NoteFeature()])
        let session = try registry.open(main)
        try session.navigate(to: RouteRequest(id: "note.editor"))
        let file = SessionPersistence(directory: directory).file(for: "main")
        for text in ["first", "second", "second", "first", ""] {
            try await session.send(IntentMessage(name: "onChangedText", arguments: ["text": .string(text)]))
            try await registry.commit(session)
            guard case .record(let record) = try file.load() else {
                Issue.record("no record on disk after \"\(text)\"")
                return
            }
            #expect(record.stack.last?.restorable == ["text": .string(text)])
        }
    }

    @Test("The record follows every change of the stack and of restorable state, however often it was read between")
    func recordFollowsChanges() async throws {
        let registry = try makeRegistry(features: [ProfileFeature(), NoteFeature()])
        let session = try registry.open(main)
        try session.navigate(to: RouteRequest(id: "note.editor"))
        try await session.send(IntentMessage(name: "onChangedText", arguments: ["text": "first"]))
        #expect(session.record.stack.last?.restorable == ["text": "first"])
        #expect(session.record.stack.last?.restorable == ["text": "first"], "read again, unchanged")

        try await session.send(IntentMessage(name: "onChangedText", arguments: ["text": "second"]))
        #expect(session.record.stack.last?.restorable == ["text": "second"])

        try session.navigate(to: RouteRequest(id: "profile.user", parameters: ["userID": "u2"]))
        let pushed = session.record
        #expect(pushed.stack.map(\.route) == ["profile.user", "note.editor", "profile.user"])
        #expect(pushed.nextScreenNumber == 4)
        #expect(pushed.revision == session.revision)

        try session.pop()
        let popped = session.record
        #expect(popped.stack.map(\.id) == [ScreenID("s1"), ScreenID("s2")])
        #expect(popped.stack.last?.restorable == ["text": "second"])
        #expect(popped.nextScreenNumber == 4, "screen numbers are never given out twice")
        #expect(popped.revision == session.revision)

        // Back to a text the screen had before: a new form for the record, though the JSON was seen once.
        try await session.send(IntentMessage(name: "onChangedText", arguments: ["text": "first"]))
        #expect(session.record.stack.last?.restorable == ["text": "first"])
    }

    @Test("A restored session's revision is above every revision given out before, written or not")
    func revisionsOnlyGrow() async throws {
        let first = try makeRegistry()
        let session = try first.open(main)
        try session.navigate(to: RouteRequest(id: "draft.editor", parameters: ["documentID": "d1"]))
        try await first.commit(session)
        // State changes that keep nothing durable are not written, but clients see their revisions.
        for index in 0..<1500 {
            try await session.send(IntentMessage(name: "onTappedNothing"))
            if index % 500 == 0 { try await first.commit(session) }
        }
        try await first.commit(session)
        let seen = session.revision
        let restored = try makeRegistry().open(main)
        #expect(restored.revision > seen)
    }

    @Test("A save that waits for its write resumes on the executor the persistence was given; a durable one at once")
    func waitingSaveResumesOnItsExecutor() async throws {
        let executor = CountingTaskExecutor()
        let persistence = SessionPersistence(directory: directory, resumeExecutor: executor)
        let record = SessionRecord(
            session: "resume",
            revision: 1,
            nextScreenNumber: 2,
            stack: [.init(id: ScreenID("s1"), route: "a.b", parameters: [:], presentation: .push, restorable: nil)]
        )
        try await persistence.save(record)
        #expect(executor.jobs > 0, "the caller came back through the executor")
        guard case .record(let onDisk) = try persistence.file(for: "resume").load() else {
            Issue.record("nothing written")
            return
        }
        #expect(onDisk.stack == record.stack)

        // The writer may still be finishing the first write's bookkeeping; a save meanwhile rightly waits.
        await persistence.waitForQueuedWrites()
        let jobs = executor.jobs
        try await persistence.save(record)
        #expect(executor.jobs == jobs, "a record on disk already is answered without waiting")
    }

    @Test("A burst of saves is answered by fewer writes than saves, and the newest record wins")
    func groupCommit() async throws {
        let persistence = SessionPersistence(directory: directory)
        let records = (0..<200).map { index in
            SessionRecord(
                session: "burst",
                revision: UInt64(index),
                nextScreenNumber: index + 2,
                stack: [
                    .init(
                        id: ScreenID("s1"),
                        route: "a.b",
                        parameters: ["n": .int(Int64(index))],
                        presentation: .push,
                        restorable: nil
                    )
                ]
            )
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for record in records { group.addTask { try await persistence.save(record) } }
            try await group.waitForAll()
        }
        guard case .record(let last) = try persistence.file(for: "burst").load() else {
            Issue.record("nothing written")
            return
        }
        #expect(records.contains(last), "the file holds one whole record")
        try await persistence.save(records[199])
        guard case .record(let final) = try persistence.file(for: "burst").load() else {
            Issue.record("the file holds no record after the last save")
            return
        }
        #expect(final == records[199])
    }

    @Test("A record that reaches the queue after a newer one never overwrites it")
    func olderRecordArrivingLateLoses() async throws {
        let persistence = SessionPersistence(directory: directory)
        let records = (1...2).map { revision in
            SessionRecord(
                session: "late",
                revision: UInt64(revision),
                nextScreenNumber: 2,
                stack: [
                    .init(
                        id: ScreenID("s1"),
                        route: "a.b",
                        parameters: ["n": .int(Int64(revision))],
                        presentation: .push,
                        restorable: nil
                    )
                ]
            )
        }

        persistence.submit(records[1])
        try await persistence.save(records[0])

        guard case .record(let onDisk) = try persistence.file(for: "late").load() else {
            Issue.record("nothing written")
            return
        }
        #expect(onDisk == records[1], "revision 2 stays on disk; revision 1's save is answered by its write")
    }
}

@Suite("Moving an untrusted file aside")
struct MoveAsideTests {
    @Test("A file moved aside never replaces one moved aside before, even within the same second")
    func moveAsideNeverOverwrites() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("navhost-aside-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = "\(folder)/main.json"
        var moved: [String] = []
        for round in 0..<3 {
            try "round \(round)".write(toFile: path, atomically: false, encoding: .utf8)
            moved.append(try FileIO.moveAside(path, suffix: "corrupt-1764000000"))
        }
        #expect(
            moved == ["\(path).corrupt-1764000000", "\(path).corrupt-1764000000-1", "\(path).corrupt-1764000000-2"]
        )
        #expect(try moved.map { try String(contentsOfFile: $0, encoding: .utf8) } == ["round 0", "round 1", "round 2"])
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}

/// A task executor that runs jobs on a queue of its own and counts them.
private final class CountingTaskExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "navhost.tests.counting-executor")
    private let count = Mutex(0)

    var jobs: Int { count.withLock { $0 } }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        count.withLock { $0 += 1 }
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
