import Foundation
import NavHostSystemd
import Testing

@Suite("Journal detection picks journald or stderr")
struct JournalDetectionTests {
    @Test("JOURNAL_STREAM naming stderr's device and inode selects the journal; any other value does not")
    func journalStream() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let descriptor = open(directory.appending("stream"), O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        var status = stat()
        #expect(fstat(descriptor, &status) == 0)
        let matching = "\(status.st_dev):\(status.st_ino)"

        #expect(JournalDetection.isJournalStream(matching, fileDescriptor: descriptor))
        #expect(!JournalDetection.isJournalStream("\(status.st_dev):\(status.st_ino + 1)", fileDescriptor: descriptor))
        #expect(!JournalDetection.isJournalStream("garbage", fileDescriptor: descriptor))
        #expect(!JournalDetection.isJournalStream(nil, fileDescriptor: descriptor))
        #expect(
            JournalDetection.destination(
                journalStream: matching,
                standardError: descriptor,
                journalSocketPath: directory.appending("none")
            ) == .journal
        )
    }

    @Test("A reachable journal socket selects the journal when stderr is not a terminal")
    func reachableSocket() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = try DatagramReceiver(path: directory.appending("journal"))
        var ends: [Int32] = [0, 0]
        pipe(&ends)
        defer { ends.forEach { close($0) } }

        #expect(JournalDetection.isJournalReachable(at: journal.path))
        #expect(!JournalDetection.isJournalReachable(at: directory.appending("none")))
        #expect(
            JournalDetection.destination(journalStream: nil, standardError: ends[1], journalSocketPath: journal.path)
                == .journal
        )
        #expect(
            JournalDetection.destination(
                journalStream: nil,
                standardError: ends[1],
                journalSocketPath: directory.appending("none")
            ) == .standardError
        )
    }
}
