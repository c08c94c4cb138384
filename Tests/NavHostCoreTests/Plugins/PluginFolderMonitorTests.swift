import Foundation
import IntegrationHarness
import NavHostStorage
import Synchronization
import Testing

@testable import NavHostPluginHost

/// The plugins folder's watcher with real inotify: the folder's own changes (created after the start, moved aside
/// and replaced, a link to it pointed elsewhere) leave it watching what the path names now.
@Suite("The plugins folder's watcher")
struct PluginFolderMonitorTests {
    @Test("A folder that does not exist yet is watched for: created, it is reported, then its plugin folders are")
    func folderCreatedAfterTheStart() async throws {
        let directory = try TestPaths.temporaryDirectory() + "/plugins"
        let monitor = try PluginFolderMonitor(directory: directory, settleTime: .seconds(60))
        let changes = ChangeRecorder(monitor)

        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        #expect(try await changes.next() == .changed(nil))
        try FileManager.default.createDirectory(atPath: "\(directory)/Home", withIntermediateDirectories: false)
        #expect(try await changes.next() == .changed(["Home"]))
        monitor.stop()
    }

    @Test("A folder moved aside and another moved in: the new one is watched, the one moved aside no longer is")
    func folderReplaced() async throws {
        let directory = try TestPaths.temporaryDirectory() + "/plugins"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        // Batches of 200 ms: the two renames, and the two folders made after them, each fall in one.
        let monitor = try PluginFolderMonitor(
            directory: directory,
            quietPeriod: .milliseconds(200),
            settleTime: .seconds(60)
        )
        let changes = ChangeRecorder(monitor)

        try FileManager.default.createDirectory(atPath: "\(directory).next", withIntermediateDirectories: false)
        try FileManager.default.moveItem(atPath: directory, toPath: "\(directory).previous")
        try FileManager.default.moveItem(atPath: "\(directory).next", toPath: directory)
        #expect(try await changes.next() == .changed(nil))
        // In one batch: a change in the folder moved aside would be reported with the new one's.
        try FileManager.default.createDirectory(atPath: "\(directory).previous/Old", withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: "\(directory)/New", withIntermediateDirectories: false)
        #expect(try await changes.next() == .changed(["New"]))
        monitor.stop()
    }

    @Test("A symbolic link pointed at another folder: the link's new target is watched")
    func linkPointedElsewhere() async throws {
        let base = try TestPaths.temporaryDirectory()
        for release in ["one", "two"] {
            try FileManager.default.createDirectory(atPath: "\(base)/\(release)", withIntermediateDirectories: false)
        }
        try FileManager.default.createSymbolicLink(atPath: "\(base)/plugins", withDestinationPath: "\(base)/one")
        let monitor = try PluginFolderMonitor(
            directory: "\(base)/plugins",
            quietPeriod: .milliseconds(200),
            settleTime: .seconds(60)
        )
        let changes = ChangeRecorder(monitor)

        // As deploy tools switch a release: a new link renamed over the old one.
        try FileManager.default.createSymbolicLink(atPath: "\(base)/plugins.new", withDestinationPath: "\(base)/two")
        #expect(rename("\(base)/plugins.new", "\(base)/plugins") == 0)
        #expect(try await changes.next() == .changed(nil))
        try FileManager.default.createDirectory(atPath: "\(base)/one/Old", withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: "\(base)/two/New", withIntermediateDirectories: false)
        #expect(try await changes.next() == .changed(["New"]))
        monitor.stop()
    }

    @Test("A link whose target is deleted and made again, which its parent's events do not tell, is watched again")
    func linkTargetMadeAgain() async throws {
        let base = try TestPaths.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: "\(base)/release", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: "\(base)/plugins", withDestinationPath: "\(base)/release")
        let monitor = try PluginFolderMonitor(directory: "\(base)/plugins", settleTime: .seconds(60))
        let changes = ChangeRecorder(monitor)

        try FileManager.default.removeItem(atPath: "\(base)/release")
        #expect(try await changes.next() == .changed(nil))
        try FileManager.default.createDirectory(atPath: "\(base)/release", withIntermediateDirectories: false)
        #expect(try await changes.next() == .changed(nil))
        try FileManager.default.createDirectory(atPath: "\(base)/release/New", withIntermediateDirectories: false)
        #expect(try await changes.next() == .changed(["New"]))
        monitor.stop()
    }

    @Test("A folder whose parent does not exist either cannot be watched: the monitor says so")
    func parentMissing() throws {
        let directory = try TestPaths.temporaryDirectory() + "/missing/plugins"
        #expect(throws: FileAccessError.self) { try PluginFolderMonitor(directory: directory) }
    }
}

// MARK: - Support

/// A monitor's changes, taken in the background as they come.
private final class ChangeRecorder: Sendable {
    private let received = Mutex<[PluginFolderMonitor.Change]>([])
    private let taken = Mutex(0)

    init(_ monitor: PluginFolderMonitor) {
        Task { [self] in
            for await change in monitor.changes { received.withLock { $0.append(change) } }
        }
    }

    /// The next change not taken yet, other than `.settled`.
    func next() async throws -> PluginFolderMonitor.Change {
        var found: PluginFolderMonitor.Change?
        _ = try await pollUntil(within: .seconds(10)) {
            found = taken.withLock { taken in
                received.withLock { received in
                    while taken < received.count {
                        defer { taken += 1 }
                        if received[taken] != .settled { return received[taken] }
                    }
                    return nil
                }
            }
            return found != nil
        }
        guard let found else { throw TimedOut(what: "a change of the plugins folder") }
        return found
    }
}
