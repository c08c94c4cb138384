import Foundation
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

/// A broken plugin put beside the good ones, and the quarantine code `io.navhost.Plugins.List` must report for it.
struct BrokenPlugin: Sendable, CustomTestStringConvertible {
    let folder: String
    let code: String
    /// Writes the plugin's folder into the plugins directory.
    let install: @Sendable (_ plugins: String) async throws -> Void

    var testDescription: String { "\(folder): \(code)" }

    static let all = [
        BrokenPlugin(folder: "Garbage", code: "badManifest") { plugins in
            try Self.write(#"{"name": "Garbage", "version": 1.0.0, this is not a manifest"#, to: "\(plugins)/Garbage")
        },
        BrokenPlugin(folder: "NotElf", code: "notASharedObject") { plugins in
            let library = "\(plugins)/NotElf/libNotElfFeature.so"
            try FileManager.default.createDirectory(atPath: "\(plugins)/NotElf", withIntermediateDirectories: true)
            try Data("#!/bin/sh\necho 'a shell script, not a shared object'\n".utf8)
                .write(to: URL(fileURLWithPath: library))
            try await Self.writeManifest(name: "NotElf", library: library, routes: ["notelf.main"], in: plugins)
        },
        // A library cut short after its manifest was written: the checksum matches, the ELF header is whole, and
        // dlopen would map pages past the end of the file (SIGBUS on the first touch).
        BrokenPlugin(folder: "Truncated", code: "notASharedObject") { plugins in
            let whole = try Data(contentsOf: URL(fileURLWithPath: TestPaths.builtLibrary("FailingPlugin")))
            let library = "\(plugins)/Truncated/libTruncatedFeature.so"
            try FileManager.default.createDirectory(atPath: "\(plugins)/Truncated", withIntermediateDirectories: true)
            try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: library))
            try await Self.writeManifest(name: "Truncated", library: library, routes: ["truncated.main"], in: plugins)
        },
        BrokenPlugin(folder: "Entryless", code: "missingEntrySymbol") { plugins in
            try await Self.link(
                TestPaths.builtLibrary("EntrylessPlugin"),
                as: "Entryless",
                routes: ["entryless.main"],
                in: plugins
            )
        },
        BrokenPlugin(folder: "Failing", code: "initialisationFailed") { plugins in
            try await Self.link(
                TestPaths.builtLibrary("FailingPlugin"),
                as: "Failing",
                routes: ["failing.main"],
                in: plugins
            )
        },
    ]

    /// Puts the library `library` in a plugin folder `name` with a manifest that describes it truly.
    private static func link(_ library: String, as name: String, routes: [String], in plugins: String) async throws {
        try FileManager.default.createDirectory(atPath: "\(plugins)/\(name)", withIntermediateDirectories: true)
        let linked = "\(plugins)/\(name)/lib\(name)Feature.so"
        try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: library)
        try await writeManifest(name: name, library: linked, routes: routes, in: plugins)
    }

    /// Writes `<plugins>/<name>/manifest.json`, taking the format from a staged example plugin's manifest: the right
    /// SDK version, the library's real SHA-256, the routes the module offers.
    private static func writeManifest(name: String, library: String, routes: [String], in plugins: String)
        async throws
    {
        let template = try Data(contentsOf: URL(fileURLWithPath: "\(DaemonProcess.examplePlugins)/Home/manifest.json"))
        guard case .object(var manifest) = try JSONParser().parse(Array(template)) else {
            throw TimedOut(what: "an object in the staged Home manifest")
        }
        let digest = try await ChildProcess.run("/usr/bin/sha256sum", [library])
        manifest["name"] = .string(name)
        manifest["summary"] = "A broken plugin for the bad-input tests."
        manifest["library"] = .string((library as NSString).lastPathComponent)
        manifest["sha256"] = .string(String(digest.output.prefix(64)))
        manifest["routes"] = .array(
            routes.map { ["route": .string($0), "parameters": [], "intents": [], "summary": ""] }
        )
        manifest["dependencies"] = []
        manifest["resources"] = []
        try write(try JSONValue.object(manifest).serializedString(), to: "\(plugins)/\(name)")
    }

    private static func write(_ manifest: String, to folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: "\(folder)/manifest.json"))
    }
}

@Suite("Bad input: broken plugins")
struct BadInputPluginTests {
    /// `io.navhost.Plugins.List`'s plugins by name.
    static func plugins(of daemon: DaemonProcess) async throws -> [String: JSONValue] {
        let client = try await VarlinkClient.connect(unixSocketPath: daemon.socketPath)
        let list = try await client.call("io.navhost.Plugins.List")
        try await client.close()
        let plugins = try #require(list["plugins"]?.arrayValue)
        return Dictionary(plugins.compactMap { plugin in plugin["name"]?.stringValue.map { ($0, plugin) } }) { $1 }
    }

    @Test(
        "A broken plugin in the plugins folder at start is quarantined with its reason; the good ones are served",
        arguments: BrokenPlugin.all
    )
    func brokenPluginAtStart(broken: BrokenPlugin) async throws {
        let directory = try await TestPlugins.directory()
        try await broken.install(directory)
        let daemon = try await DaemonProcess.start(plugins: directory)
        let witness = try await Witness.connect(to: daemon, session: "main")

        let plugins = try await Self.plugins(of: daemon)
        for name in TestPlugins.examples {
            #expect(plugins[name]?["state"] == "loaded", "\(name) is served beside the broken plugin")
        }
        let reported = try #require(plugins[broken.folder], "the broken plugin is listed: \(plugins.keys.sorted())")
        #expect(reported["state"] == "quarantined")
        #expect(reported["quarantine"]?["code"] == .string(broken.code))
        #expect(reported["quarantine"]?["message"]?.stringValue?.isEmpty == false, "with a reason for the operator")
        let ready = try #require(daemon.notifications.first { $0.contains("READY=1") })
        #expect(ready.contains("4 plugins loaded, 1 quarantined"), "\(ready)")

        // The good plugins' screens work.
        let pushed = try await witness.client.call(
            "io.navhost.Navigation.Navigate",
            parameters: ["route": "products.list"]
        )
        #expect(pushed["screen"]?["route"] == "products.list")
        try await witness.confirm(unchanged: false)
        #expect(try await daemon.terminate() == 0)
    }

    @Test(
        "Broken plugins that appear before a reload (SIGHUP) are quarantined; the daemon goes on serving, losing nothing"
    )
    func brokenPluginsOnReload() async throws {
        let directory = try await TestPlugins.directory()
        let daemon = try await DaemonProcess.start(plugins: directory)
        let witness = try await Witness.connect(to: daemon, session: "main")
        for broken in BrokenPlugin.all { try await broken.install(directory) }

        let count = daemon.notifications.count
        daemon.send(signal: SIGHUP)
        let ready = try await daemon.waitFor("READY=1", after: count)
        #expect(ready.contains("4 plugins loaded, \(BrokenPlugin.all.count) quarantined"), "\(ready)")
        let plugins = try await Self.plugins(of: daemon)
        for broken in BrokenPlugin.all {
            #expect(plugins[broken.folder]?["quarantine"]?["code"] == .string(broken.code), "\(broken.folder)")
        }
        try await witness.confirm()
        #expect(try await daemon.terminate() == 0)
    }
}
