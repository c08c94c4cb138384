import Foundation
import IntegrationHarness
import Testing

@testable import NavHostStorage

/// The test hook behind `--test-state-write-delay`: the kill -9 tests that use it rely on each write waiting, and would
/// quietly go back to catching a reply sent before its write only by chance if it did not.
@Suite("Writes slowed for the kill tests")
struct DelayedDiskWritesTests {
    @Test("Each write and replace waits the delay before it begins, then writes what the disk's would")
    func writesWaitTheDelay() throws {
        let directory = try TestPaths.temporaryDirectory()
        let writes = DelayedDiskWrites(delay: .milliseconds(50))
        let clock = ContinuousClock()

        // A lower bound only: a busy machine can make a write slower, never faster.
        var start = clock.now
        try writes.replace("\(directory)/whole", with: Array("replaced".utf8))
        #expect(clock.now - start >= .milliseconds(50))
        #expect(FileManager.default.contents(atPath: "\(directory)/whole") == Data("replaced".utf8))

        start = clock.now
        _ = try writes.write(
            Array("line".utf8),
            at: 0,
            to: "\(directory)/journal",
            cuttingTo: nil,
            create: true,
            headLast: 0
        )
        #expect(clock.now - start >= .milliseconds(50))
        #expect(FileManager.default.contents(atPath: "\(directory)/journal") == Data("line".utf8))
    }
}
