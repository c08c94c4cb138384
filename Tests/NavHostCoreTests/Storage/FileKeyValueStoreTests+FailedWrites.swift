import Foundation
import NavHostKit
import Testing

@testable import NavHostStorage

// A write of a feature's store that fails is thrown to the ViewModel as not stored: what the file holds for a
// restart must agree, also when the failed write renamed the new file into place (its folder's `fsync` failed).
extension FileKeyValueStoreTests {
    /// A store whose writes go through a faulty disk, holding 1 under "count", in a new folder.
    static func storeCountingOne() async throws -> (TemporaryDirectory, FaultyDiskWrites, FileKeyValueStore) {
        let directory = try TemporaryDirectory()
        let disk = FaultyDiskWrites()
        let store = FileKeyValueStore(path: storeFile(in: directory), logger: .silent, writes: disk)
        try await store.setValue(1, forKey: "count")
        return (directory, disk, store)
    }

    /// The file of the store ``storeCountingOne()`` makes in `directory`.
    static func storeFile(in directory: TemporaryDirectory) -> String {
        "\(directory.path)/store/Settings.json"
    }

    @Test("A write that failed with its file in place is written back: the store and a restart read the old value")
    func failedWriteInPlaceIsWrittenBack() async throws {
        let (directory, disk, store) = try await Self.storeCountingOne()
        defer { directory.remove() }
        let path = Self.storeFile(in: directory)

        disk.failNext([.afterLanding])
        await #expect(throws: FileAccessError.self) { try await store.setValue(2, forKey: "count") }
        disk.failNext([.afterLanding])
        await #expect(throws: FileAccessError.self) { try await store.updateValue(forKey: "added") { _ in 3 } }

        // Each failed write, then the values before it written over it.
        #expect(disk.log.count == 5, "\(disk.log)")
        #expect(try await store.allValues() == ["count": 1])
        let restarted = FileKeyValueStore(path: path, logger: .silent)
        #expect(try await restarted.allValues() == ["count": 1])
    }

    @Test("A write in place whose write-back fails too leaves the store with what the file holds")
    func failedWriteBackReadsTheFile() async throws {
        let (directory, disk, store) = try await Self.storeCountingOne()
        defer { directory.remove() }
        let path = Self.storeFile(in: directory)

        disk.failNext([.afterLanding, .beforeLanding])
        await #expect(throws: FileAccessError.self) { try await store.setValue(2, forKey: "count") }

        #expect(try await store.value(forKey: "count") == 2, "the file holds the new value: the store says so")
        #expect(try await FileKeyValueStore(path: path, logger: .silent).value(forKey: "count") == 2)
    }

    @Test("A write that failed before it replaced the file writes nothing more, and the store keeps its values")
    func failedWriteNotInPlaceIsNotWrittenAgain() async throws {
        let (directory, disk, store) = try await Self.storeCountingOne()
        defer { directory.remove() }
        let path = Self.storeFile(in: directory)

        disk.failNext([.beforeLanding])
        await #expect(throws: FileAccessError.self) { try await store.setValue(2, forKey: "count") }

        #expect(disk.log.count == 2, "\(disk.log)")
        #expect(try await FileKeyValueStore(path: path, logger: .silent).value(forKey: "count") == 1)
        // Kept, not read again: the store is its file's only writer, and a file changed behind it does not show.
        try Data(#"{"count":7}"#.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try await store.value(forKey: "count") == 1)
    }

    @Test("A write in place whose write-back is in place too keeps the old value, for the store and a restart")
    func failedWriteBackInPlace() async throws {
        let (directory, disk, store) = try await Self.storeCountingOne()
        defer { directory.remove() }
        let path = Self.storeFile(in: directory)

        disk.failNext([.afterLanding, .afterLanding])
        await #expect(throws: FileAccessError.self) { try await store.setValue(2, forKey: "count") }

        #expect(try await FileKeyValueStore(path: path, logger: .silent).value(forKey: "count") == 1)
        try Data(#"{"count":7}"#.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try await store.value(forKey: "count") == 1, "kept, not read again")
    }
}
