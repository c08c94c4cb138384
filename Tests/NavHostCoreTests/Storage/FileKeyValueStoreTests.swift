import Foundation
import InMemoryLogging
import Logging
import NavHostKit
import Testing

@testable import NavHostCore
@testable import NavHostStorage

@Suite("The durable file store")
struct FileKeyValueStoreTests {
    @Test("A value written by one store is read by a new store over the same file")
    func persistsAcrossInstances() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileKeyValueStore(directory: "\(directory.path)/store", feature: "Settings", logger: .silent)
        try await store.setValue(["theme": "dark"], forKey: "preferences")
        try await store.setValue(1, forKey: "seed")
        try await store.removeValue(forKey: "seed")

        let reopened = FileKeyValueStore(directory: "\(directory.path)/store", feature: "Settings", logger: .silent)
        #expect(try await reopened.value(forKey: "preferences") == ["theme": "dark"])
        #expect(try await reopened.value(forKey: "seed") == nil)
        #expect(try await reopened.allValues() == ["preferences": ["theme": "dark"]])
    }

    @Test("Updates made at once each change what the one before stored; a throwing or nil transform writes or removes")
    func updates() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileKeyValueStore(directory: "\(directory.path)/store", feature: "Orders", logger: .silent)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for number in 1...20 {
                group.addTask {
                    _ = try await store.update([Int].self, forKey: "numbers") { numbers in
                        numbers = (numbers ?? []) + [number]
                    }
                }
            }
            try await group.waitForAll()
        }
        let reopened = FileKeyValueStore(directory: "\(directory.path)/store", feature: "Orders", logger: .silent)
        #expect(try await reopened.load([Int].self, forKey: "numbers")?.sorted() == Array(1...20))

        await #expect(throws: CancellationError.self) {
            try await store.updateValue(forKey: "numbers") { _ in throw CancellationError() }
        }
        let kept = try await store.load([Int].self, forKey: "numbers")
        #expect(kept?.count == 20, "a throwing transform changes nothing")
        #expect(try await store.updateValue(forKey: "numbers") { _ in nil } == nil)
        let emptied = FileKeyValueStore(directory: "\(directory.path)/store", feature: "Orders", logger: .silent)
        #expect(try await emptied.allValues() == [:])
    }

    @Test("The file is one JSON object, private to the daemon, and no temporary file is left beside it")
    func fileLayout() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileKeyValueStore(directory: "\(directory.path)/store", feature: "Products", logger: .silent)
        try await store.save(["a", "b"], forKey: "recent")
        try await store.save(["a", "b", "c"], forKey: "recent")

        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(directory.path)/store") == ["Products.json"])
        let path = "\(directory.path)/store/Products.json"
        #expect(try JSONParser().parse(Data(contentsOf: URL(fileURLWithPath: path))) == ["recent": ["a", "b", "c"]])
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("A missing file is an empty store, and removing what is not there writes nothing")
    func missingFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileKeyValueStore(path: "\(directory.path)/a/b/Home.json", logger: .silent)
        #expect(try await store.value(forKey: "session") == nil)
        try await store.removeValue(forKey: "session")
        #expect(!FileManager.default.fileExists(atPath: "\(directory.path)/a"))
    }

    @Test("A corrupt file is moved aside with its bytes, logged, and the store starts empty and works")
    func corruptFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = "\(directory.path)/Settings.json"
        try Data("{\"preferences\": {\"theme\": \"da".utf8).write(to: URL(fileURLWithPath: path))
        let logs = InMemoryLogHandler()
        let store = FileKeyValueStore(path: path, logger: Logger(label: "test") { _ in logs })

        #expect(try await store.value(forKey: "preferences") == nil)

        let aside = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasPrefix("Settings.json.corrupt-")
        }
        #expect(aside.count == 1)
        let kept = try String(contentsOfFile: "\(directory.path)/\(aside[0])", encoding: .utf8)
        #expect(kept == "{\"preferences\": {\"theme\": \"da")
        #expect(logs.entries.map(\.level) == [.warning])
        #expect(logs.entries.first?.metadata["navhost.store.path"] == "\(path)")

        try await store.setValue(["theme": "light"], forKey: "preferences")
        let reopened = FileKeyValueStore(path: path, logger: .silent)
        #expect(try await reopened.value(forKey: "preferences") == ["theme": "light"])
    }

    @Test("A file holding JSON that is not an object counts as corrupt")
    func notAnObject() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = "\(directory.path)/Home.json"
        try Data("[1, 2, 3]".utf8).write(to: URL(fileURLWithPath: path))
        let store = FileKeyValueStore(path: path, logger: .silent)
        #expect(try await store.allValues().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("A store whose folder cannot be created fails its write with a typed error, and keeps the old value")
    func unwritable() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data().write(to: URL(fileURLWithPath: "\(directory.path)/file"))
        let store = FileKeyValueStore(path: "\(directory.path)/file/Home.json", logger: .silent)
        await #expect(throws: FileAccessError.self) { try await store.setValue(1, forKey: "a") }
        #expect(try await store.value(forKey: "a") == nil)
    }
}
