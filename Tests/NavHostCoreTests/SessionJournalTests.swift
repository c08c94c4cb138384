import Foundation
import NavHostKit
import NavHostStorage
import Testing

/// The snapshot and journal of one session (``SessionStateFile``): which record a crash at any point leaves.
@Suite("A session's snapshot and journal")
struct SessionJournalTests {
    let directory: String
    let file: SessionStateFile

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("navhost-journal-\(UUID())").path
        file = SessionStateFile(directory: directory, session: "main")
    }

    /// A record of session `main` at `revision`, whose only screen's restorable state names the revision.
    static func record(_ revision: UInt64) -> SessionRecord {
        SessionRecord(
            session: "main",
            revision: revision,
            nextScreenNumber: 2,
            stack: [
                .init(
                    id: ScreenID("s1"),
                    route: "draft.editor",
                    parameters: [:],
                    presentation: .push,
                    restorable: ["text": .string("revision \(revision)")]
                )
            ]
        )
    }

    func loadedRecord() throws -> SessionRecord? {
        guard case .record(let record) = try file.load() else { return nil }
        return record
    }

    func bytes(of path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test("After the snapshot, writes append one line each to the journal, and the last line is what loads")
    func writesAppend() throws {
        var position = try file.write(Self.record(1), after: nil)
        let snapshot = try bytes(of: file.path)
        for revision in 2...5 { position = try file.write(Self.record(UInt64(revision)), after: position) }

        #expect(try bytes(of: file.path) == snapshot, "the snapshot is written once")
        let journal = try bytes(of: file.journalPath)
        #expect(journal.filter { $0 == UInt8(ascii: "\n") }.count == 4)
        #expect(position.size == journal.count)
        #expect(try loadedRecord() == Self.record(5))
    }

    @Test("A line cut short by a crash ends the journal: the line before it loads")
    func tornLastLine() throws {
        var position = try file.write(Self.record(1), after: nil)
        position = try file.write(Self.record(2), after: position)
        position = try file.write(Self.record(3), after: position)
        let journal = try bytes(of: file.journalPath)
        let secondLineEnd = try #require(journal.indices.filter { journal[$0] == UInt8(ascii: "\n") }.first)
        for cut in [secondLineEnd + 1 + 10, journal.count - 1] {
            try Data(journal.prefix(cut)).write(to: URL(fileURLWithPath: file.journalPath))
            #expect(try loadedRecord() == Self.record(2), "cut at \(cut) of \(journal.count)")
        }
        try Data(journal.prefix(secondLineEnd / 2)).write(to: URL(fileURLWithPath: file.journalPath))
        #expect(try loadedRecord() == Self.record(1), "no whole line: the snapshot's record")
    }

    @Test("A line whose checksum does not match is passed over: the newest line that verifies loads")
    func damagedLineIsPassedOver() throws {
        var position = try file.write(Self.record(1), after: nil)
        for revision in 2...4 { position = try file.write(Self.record(UInt64(revision)), after: position) }
        let text = String(decoding: try bytes(of: file.journalPath), as: UTF8.self)

        let middle = text.replacingOccurrences(of: "revision 3", with: "revision 9")
        try Data(middle.utf8).write(to: URL(fileURLWithPath: file.journalPath))
        #expect(try loadedRecord() == Self.record(4), "a damaged line before the last does not hide it")

        let last = text.replacingOccurrences(of: "revision 4", with: "revision 9")
        try Data(last.utf8).write(to: URL(fileURLWithPath: file.journalPath))
        #expect(try loadedRecord() == Self.record(3), "a damaged last line: the one before it")
    }

    @Test("Lines of an older generation after a new snapshot (a crash before its first append) are not read")
    func olderGenerationIsNotRead() throws {
        var position = try file.write(Self.record(1), after: nil)
        position = try file.write(Self.record(2), after: position)
        _ = try file.write(Self.record(3), after: nil)
        #expect(try loadedRecord() == Self.record(3))
        // Even with a torn line of the new generation after them (not possible: the first append empties the file).
        var journal = try bytes(of: file.journalPath)
        journal.append(contentsOf: Array("{\"format\":\"navhost.session\"".utf8))
        try Data(journal).write(to: URL(fileURLWithPath: file.journalPath))
        #expect(try loadedRecord() == Self.record(3))
    }

    @Test("A new snapshot retires the journal: its lines never load again, and the next line replaces them")
    func newSnapshotRetiresJournal() throws {
        var position = try file.write(Self.record(1), after: nil)
        for revision in 2...3 { position = try file.write(Self.record(UInt64(revision)), after: position) }
        let oldJournal = try bytes(of: file.journalPath)

        // A new run's first write: a snapshot of a new generation, the old journal still on disk beside it.
        let restarted = try file.write(Self.record(4), after: nil)
        #expect(restarted.generation != position.generation)
        #expect(try bytes(of: file.journalPath) == oldJournal)
        #expect(try loadedRecord() == Self.record(4), "the old generation's lines are not read")

        let next = try file.write(Self.record(5), after: restarted)
        #expect(try bytes(of: file.journalPath).count == next.size, "the first append empties the journal")
        #expect(try loadedRecord() == Self.record(5))
    }

    @Test("A journal past its limit is folded into a new snapshot by the next write")
    func fullJournalBecomesSnapshot() throws {
        var position = try file.write(Self.record(1), after: nil)
        let first = position.generation
        var revision: UInt64 = 1
        while position.generation == first {
            revision += 1
            position = try file.write(Self.record(revision), after: position)
        }
        #expect(position.size == 0)
        #expect(revision > 2 && revision < UInt64(SessionStateFile.journalLimit / 100))
        #expect(try loadedRecord() == Self.record(revision))
        #expect(try bytes(of: file.path).count > 0)
    }

    @Test("A snapshot of format version 1, written before the journal existed, loads, and no journal is read for it")
    func versionOneSnapshotLoads() throws {
        var position = try file.write(Self.record(1), after: nil)
        position = try file.write(Self.record(2), after: position)
        // The envelope as version 1 wrote it: no generation.
        var envelope = try #require(try JSONParser().parse(try bytes(of: file.path)).objectValue)
        envelope["version"] = .int(1)
        envelope["generation"] = nil
        try Data(try JSONValue.object(envelope).serializedBytes()).write(to: URL(fileURLWithPath: file.path))
        #expect(try loadedRecord() == Self.record(1))
    }
}
