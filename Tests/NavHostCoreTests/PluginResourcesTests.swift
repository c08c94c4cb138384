import Foundation
import NavHostKit
import Testing

@testable import NavHostTesting

/// `ResourceFolder`, what `HostServices.resources` reads a plugin's shipped files with.
@Suite("A plugin's resources, read by name")
struct PluginResourcesTests {
    @Test("A file is read whole, larger than one read too; a folder path with a trailing slash works")
    func readsWholeFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("resources-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let large = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(large).write(to: folder.appendingPathComponent("large.bin"))
        try Data("{}".utf8).write(to: folder.appendingPathComponent("small.json"))

        #expect(try ResourceFolder(path: folder.path).contents(of: "large.bin") == large)
        #expect(try ResourceFolder(path: folder.path + "/").contents(of: "small.json") == Array("{}".utf8))
        let services = HostServices(
            logger: .silent,
            clock: ContinuousClock(),
            store: InMemoryKeyValueStore(),
            resourceDirectory: folder.path
        )
        #expect(try services.resources.contents(of: "small.json") == Array("{}".utf8))
    }

    @Test("A missing file is a ResourceError that says so; a path that leaves the folder is refused")
    func refusals() {
        let resources = ResourceFolder(path: "/nonexistent")
        #expect(throws: ResourceError(name: "products.json", reason: "No such file or directory", isMissing: true)) {
            try resources.contents(of: "products.json")
        }
        #expect(throws: ResourceError(name: "data/rates.json", reason: "No such file or directory", isMissing: true)) {
            try resources.contents(of: "data/rates.json")
        }
        for name in ["", ".", "..", "/etc/passwd", "../etc/passwd", "data/../../x", "data//rates.json", "data/"] {
            let error = #expect(throws: ResourceError.self) { try ResourceFolder(path: "/etc").contents(of: name) }
            #expect(error?.isMissing == false, "\(name)")
            #expect(error?.reason == "a resource is named by its path inside the plugin's folder", "\(name)")
        }
    }

    @Test("A test host gives the features only the resources plugin.json lists, as staging does, and cleans up")
    func stagedForATest() throws {
        let package = FileManager.default.temporaryDirectory.appendingPathComponent("package-\(UUID().uuidString)")
        let resources = package.appendingPathComponent("Resources")
        try FileManager.default.createDirectory(
            at: resources.appendingPathComponent("data"),
            withIntermediateDirectories: true
        )
        defer { try? FileManager.default.removeItem(at: package) }
        try Data("[1]".utf8).write(to: resources.appendingPathComponent("listed.json"))
        try Data("[2]".utf8).write(to: resources.appendingPathComponent("data/rates.json"))
        try Data("[3]".utf8).write(to: resources.appendingPathComponent("unlisted.json"))
        let manifest = package.appendingPathComponent("plugin.json").path
        try Data(#"{"name":"P","resources":["listed.json","data/rates.json"]}"#.utf8).write(
            to: URL(fileURLWithPath: manifest)
        )

        var staged = try #require(try StagedResources(listedIn: manifest, from: resources.path))
        let folder = ResourceFolder(path: staged.path)
        #expect(try folder.contents(of: "listed.json") == Array("[1]".utf8))
        #expect(try folder.contents(of: "data/rates.json") == Array("[2]".utf8))
        #expect(throws: ResourceError(name: "unlisted.json", reason: "No such file or directory", isMissing: true)) {
            try folder.contents(of: "unlisted.json")
        }
        let path = staged.path
        staged = try #require(try StagedResources(listedIn: manifest, from: resources.path))
        #expect(!FileManager.default.fileExists(atPath: path), "the first copy went with its value")
        _ = staged

        #expect(
            try StagedResources(listedIn: package.appendingPathComponent("none.json").path, from: resources.path) == nil
        )
        // A listed file that is not there is left out; staging is where that is refused.
        try Data(#"{"resources":["gone.json","listed.json"]}"#.utf8).write(to: URL(fileURLWithPath: manifest))
        let partial = try #require(try StagedResources(listedIn: manifest, from: resources.path))
        #expect(try ResourceFolder(path: partial.path).contents(of: "listed.json") == Array("[1]".utf8))
        #expect(throws: ResourceError(name: "gone.json", reason: "No such file or directory", isMissing: true)) {
            try ResourceFolder(path: partial.path).contents(of: "gone.json")
        }
        try Data("[]".utf8).write(to: URL(fileURLWithPath: manifest))
        #expect(throws: ResourceError(name: manifest, reason: "it is not a JSON object")) {
            try StagedResources(listedIn: manifest, from: resources.path)
        }
        try Data(#"{"resources":"listed.json"}"#.utf8).write(to: URL(fileURLWithPath: manifest))
        #expect(throws: ResourceError(name: manifest, reason: "its resources are not a list of names")) {
            try StagedResources(listedIn: manifest, from: resources.path)
        }
    }
}
