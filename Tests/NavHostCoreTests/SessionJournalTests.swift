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

    /// The journal's lines, without the zeros after them.
    func journalLines() throws -> [UInt8] {
        let journal = try bytes(of: file.journalPath)
        return Array(journal[..<((journal.lastIndex { $0 != 0 } ?? -1) + 1)])
    }

    /// Writes `lines` as the journal, with zeros after them to the journal's size as a crash leaves it.
    func writeJournal(_ lines: [UInt8]) throws {
        let zeros = [UInt8](repeating: 0, count: max(0, SessionStateFile.journalCapacity - lines.count))
        try Data(lines + zeros).write(to: URL(fileURLWithPath: file.journalPath))
    }

    @Test("After the snapshot, writes add one line each to the journal, and the last line is what loads")
    func writesAppend() throws {
        var position = try file.write(Self.record(1), after: nil)
        let snapshot = try bytes(of: file.path)
        for revision in 2...5 { position = try file.write(Self.record(UInt64(revision)), after: position) }

        #expect(try bytes(of: file.path) == snapshot, "the snapshot is written once")
        let lines = try journalLines()
        #expect(lines.filter { $0 == UInt8(ascii: "\n") }.count == 4)
        #expect(lines.last == UInt8(ascii: "\n"))
        #expect(position.size == lines.count)
        #expect(try loadedRecord() == Self.record(5))
    }

    @Test("The journal's file keeps its size: the first line of a generation makes it, zeros after the lines")
    func journalIsMadeWhole() throws {
        var position = try file.write(Self.record(1), after: nil)
        position = try file.write(Self.record(2), after: position)
        #expect(try bytes(of: file.journalPath).count == SessionStateFile.journalCapacity)
        for revision in 3...6 {
            position = try file.write(Self.record(UInt64(revision)), after: position)
            let journal = try bytes(of: file.journalPath)
            #expect(journal.count == SessionStateFile.journalCapacity, "after revision \(revision)")
            #expect(journal[position.size...].allSatisfy { $0 == 0 }, "after revision \(revision)")
        }

        // A line longer than the file makes it longer; the next generation's first line makes it its size again.
        var long = Self.record(7)
        long.stack[0].restorable = ["text": .string(String(repeating: "x", count: SessionStateFile.journalCapacity))]
        position = try file.write(long, after: try file.write(Self.record(7), after: nil))
        #expect(try bytes(of: file.journalPath).count == position.size)
        #expect(try loadedRecord() == long)
        position = try file.write(Self.record(8), after: position)
        #expect(position.size == 0, "past the limit: a new snapshot")
        position = try file.write(Self.record(9), after: position)
        #expect(try bytes(of: file.journalPath).count == SessionStateFile.journalCapacity)
        #expect(try loadedRecord() == Self.record(9))
    }

    @Test("A line cut short by a crash ends the journal: the line before it loads")
    func tornLastLine() throws {
        var position = try file.write(Self.record(1), after: nil)
        position = try file.write(Self.record(2), after: position)
        position = try file.write(Self.record(3), after: position)
        let journal = try journalLines()
        let secondLineEnd = try #require(journal.indices.filter { journal[$0] == UInt8(ascii: "\n") }.first)
        for cut in [secondLineEnd + 1 + 10, journal.count - 1] {
            try writeJournal(Array(journal.prefix(cut)))
            #expect(try loadedRecord() == Self.record(2), "cut at \(cut) of \(journal.count)")
            // A file cut short too (as an append left it).
            try Data(journal.prefix(cut)).write(to: URL(fileURLWithPath: file.journalPath))
            #expect(try loadedRecord() == Self.record(2), "cut at \(cut) of \(journal.count), no zeros")
        }
        // A torn write may also leave a later part of the line on disk and not an earlier one.
        var holed = journal
        holed.replaceSubrange((secondLineEnd + 20)..<(secondLineEnd + 60), with: repeatElement(0, count: 40))
        try writeJournal(holed)
        #expect(try loadedRecord() == Self.record(2), "a last line with zeros in it")
        try writeJournal(Array(journal.prefix(secondLineEnd / 2)))
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

    @Test("Lines of an older generation after a new snapshot (a crash before or during its first line) are not read")
    func olderGenerationIsNotRead() throws {
        var position = try file.write(Self.record(1), after: nil)
        position = try file.write(Self.record(2), after: position)
        position = try file.write(Self.record(3), after: position)
        position = try file.write(Self.record(4), after: position)
        let oldLines = try journalLines()
        let snapshot = try file.write(Self.record(5), after: nil)
        #expect(try loadedRecord() == Self.record(5))

        // A crash during the new generation's first write, which zeroes the rest of the file, can leave its line
        // whole (or cut short) at the start and lines of the old generation after it: their change was not
        // acknowledged, and the snapshot's record loads.
        _ = try file.write(Self.record(6), after: snapshot)
        let newLine = try journalLines()
        #expect(newLine.count < oldLines.count)
        for kept in [newLine.count, newLine.count / 2] {
            try writeJournal(Array(newLine.prefix(kept)) + oldLines[kept...])
            #expect(try loadedRecord() == Self.record(5), "\(kept) bytes of the new line kept")
        }
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
        #expect(try journalLines().count == next.size, "the first line zeroes the rest of the journal")
        #expect(try loadedRecord() == Self.record(5))
    }

    @Test("A journal deleted or moved away during its generation makes the next write a new snapshot")
    func lostJournalBecomesSnapshot() throws {
        var position = try file.write(Self.record(1), after: nil)
        for revision in 2...3 { position = try file.write(Self.record(UInt64(revision)), after: position) }
        try FileManager.default.moveItem(atPath: file.journalPath, toPath: file.journalPath + ".moved")

        let next = try file.write(Self.record(4), after: position)
        #expect(next.generation != position.generation && next.size == 0, "a new snapshot, not a line")
        #expect(try loadedRecord() == Self.record(4))
        _ = try file.write(Self.record(5), after: next)
        #expect(try loadedRecord() == Self.record(5), "the new generation's first line makes the journal again")
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
