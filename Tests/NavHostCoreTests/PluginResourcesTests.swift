import Foundation
import NavHostKit
import NavHostTesting
import Testing

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
}
