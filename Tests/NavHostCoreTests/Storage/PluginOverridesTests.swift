import Foundation
import NavHostStorage
import Testing

@Suite("What is loaded and unloaded by hand, and its file")
struct PluginOverridesTests {
    let plugins = "/usr/lib/navhost/plugins"

    @Test("A folder outside the plugins folder is listed as loaded; one of it, unloaded, until it is loaded again")
    func notesByFolder() {
        var overrides = PluginOverrides()
        overrides.noteLoaded("/opt/orders/Orders", pluginsFolder: plugins)
        overrides.noteLoaded("\(plugins)/Products", pluginsFolder: plugins + "/")
        overrides.noteUnloaded("\(plugins)/Settings", pluginsFolder: plugins)
        overrides.noteUnloaded("\(plugins)/Settings", pluginsFolder: plugins)
        #expect(overrides.loaded == ["/opt/orders/Orders"])
        #expect(overrides.unloaded == ["\(plugins)/Settings"])

        overrides.noteLoaded("\(plugins)/Settings", pluginsFolder: plugins)
        overrides.noteUnloaded("/opt/orders/Orders", pluginsFolder: plugins)
        #expect(overrides == PluginOverrides())
    }

    @Test("The file round-trips; a corrupt one is moved aside and none are listed")
    func fileRoundTrip() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = PluginOverridesFile(directory: directory.path)
        #expect(try file.load().get() == PluginOverrides())
        let overrides = PluginOverrides(loaded: ["/opt/orders/Orders"], unloaded: ["\(plugins)/Settings"])
        try await file.save(overrides)
        #expect(try file.load().get() == overrides)

        try Data("{\"format\":\"navhost.opened-sessions\",\"version\":1}".utf8).write(
            to: URL(fileURLWithPath: file.path)
        )
        #expect(try file.load().get() == PluginOverrides())
        let entries = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(entries.contains { $0.hasPrefix("plugin-overrides.json.corrupt-") }, "\(entries)")
    }
}
