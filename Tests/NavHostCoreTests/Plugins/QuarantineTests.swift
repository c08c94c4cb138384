import Foundation
import InMemoryLogging
import IntegrationHarness
import NavHostKit
import Testing

@testable import NavHostCore
@testable import NavHostPluginHost
@testable import NavHostStorage

/// One deliberately broken plugin per quarantine reason, loaded through the real registry beside the four staged
/// example plugins: the broken one is quarantined with its typed reason, and the examples still load and serve.
@MainActor
@Suite("Quarantine: each broken plugin is refused with its reason, and the others serve")
struct QuarantineTests {
    // MARK: Files

    @Test("A manifest naming a library that is not there: fileMissing")
    func libraryMissing() async throws {
        try await expectQuarantine(.fileMissing, mentioning: "libProbePlugin.so") { workspace in
            try workspace.add("Probe", manifest: try probeManifest(), library: nil)
        }
    }

    @Test("A plugin folder without a manifest: fileMissing")
    func manifestMissing() async throws {
        try await expectQuarantine(.fileMissing, mentioning: "manifest.json", named: "Leftovers") { workspace in
            try FileManager.default.createDirectory(
                atPath: "\(workspace.plugins)/Leftovers",
                withIntermediateDirectories: true
            )
        }
    }

    @Test(
        "A manifest that is not JSON, lacks a field, has an unknown one or breaks a rule: badManifest, naming it",
        arguments: BrokenManifest.allCases
    )
    func badManifest(broken: BrokenManifest) async throws {
        try await expectQuarantine(.badManifest, mentioning: broken.detail, named: "Probe") { workspace in
            try workspace.add("Probe", manifestText: try broken.text())
        }
    }

    @Test("A library whose SHA-256 is not the manifest's: checksumMismatch, naming the file in the plugin's folder")
    func checksumMismatch() async throws {
        let zeros = String(repeating: "0", count: 64)
        let registry = try await expectQuarantine(.checksumMismatch, mentioning: zeros) { workspace in
            var manifest = try probeManifest()
            manifest.sha256 = zeros
            try workspace.add("Probe", manifest: manifest, library: TestPaths.builtLibrary("ProbePlugin"))
        }
        // Not the private copy in the state folder, which is gone by then.
        let message = registry.status(named: "Probe")?.quarantineReason?.message ?? ""
        #expect(message.contains("/plugins/Probe/libProbePlugin.so has"), "\(message)")
    }

    @Test(
        "A manifest or library someone else could change, or a folder on the way: unsafePermissions, naming it",
        arguments: [
            ("manifest.json", 0o664, nil), ("libProbePlugin.so", 0o757, nil), (".", 0o775, nil),
            ("manifest.json", 0o644, 65534),
        ] as [(String, Int, UInt32?)]
    )
    func unsafePermissions(file: String, mode: Int, owner: UInt32?) async throws {
        let expected = owner.map { "belongs to user \($0)" } ?? "mode 0\(String(mode, radix: 8))"
        try await expectQuarantine(.unsafePermissions, mentioning: expected) { workspace in
            try workspace.add("Probe", manifest: try probeManifest(), library: TestPaths.builtLibrary("ProbePlugin"))
            // A copy of the library, not the link to the build's, which other tests load.
            let library = "\(workspace.plugins)/Probe/libProbePlugin.so"
            try FileManager.default.removeItem(atPath: library)
            try FileManager.default.copyItem(atPath: TestPaths.builtLibrary("ProbePlugin"), toPath: library)
            let path = "\(workspace.plugins)/Probe/\(file)"
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
            if let owner { #expect(chown(path, owner, owner) == 0) }
        }
    }

    @Test("A plugin under a sticky folder anyone may write (/tmp) loads: no one can replace what another owns there")
    func stickyFolderOnTheWay() async throws {
        #expect(PathSafety.problem(with: "/tmp") == nil)
        let folder = try TestPaths.temporaryDirectory()
        #expect(chmod(folder, 0o1777) == 0)
        #expect(PathSafety.problem(with: folder) == nil)
        #expect(mkdir("\(folder)/plugin", 0o755) == 0)
        #expect(PathSafety.problem(with: "\(folder)/plugin") == nil)
        #expect(chmod(folder, 0o777) == 0)
        #expect(PathSafety.problem(with: "\(folder)/plugin")?.contains("may be written by anyone (mode 0777)") == true)
        // Through a symbolic link, the folders of what it resolves to are checked too.
        let link = try TestPaths.temporaryDirectory() + "/link"
        #expect(symlink("\(folder)/plugin", link) == 0)
        #expect(PathSafety.problem(with: link)?.contains("\(folder) may be written by anyone") == true)
    }

    @Test("A resource the manifest lists that is not in the folder: fileMissing, naming it")
    func resourceMissing() async throws {
        try await expectQuarantine(.fileMissing, mentioning: "the resource catalog.json the manifest lists") {
            workspace in
            var manifest = try probeManifest()
            manifest.resources = ["catalog.json"]
            try workspace.add("Probe", manifest: manifest, library: TestPaths.builtLibrary("ProbePlugin"))
        }
    }

    @Test("A text file named .so: notASharedObject, not a dlopen error")
    func textFileNamedSO() async throws {
        try await expectQuarantine(.notASharedObject, mentioning: "not an ELF file") { workspace in
            let text = try writeFile("not a library\n", in: workspace, named: "text.so")
            var manifest = try probeManifest()
            manifest.sha256 = try SHA256.hexDigest(ofFileAt: text)
            try workspace.add("Probe", manifest: manifest, library: text)
        }
    }

    @Test(
        "An ELF file that is not a shared object for this machine: notASharedObject",
        arguments: [(objectType: UInt16(1), machine: UInt16(62), detail: "type 1"), (3, 183, "machine 183")]
    )
    func elfButNotLoadable(objectType: UInt16, machine: UInt16, detail: String) async throws {
        try #require(ELFHeader.host.machine == 62, "the crafted headers assume an x86-64 host")
        try await expectQuarantine(.notASharedObject, mentioning: detail) { workspace in
            let path = "\(workspace.plugins)/../crafted.so"
            try Data(craftedELFHeader(objectType: objectType, machine: machine)).write(to: URL(fileURLWithPath: path))
            var manifest = try probeManifest()
            manifest.sha256 = try SHA256.hexDigest(ofFileAt: path)
            try workspace.add("Probe", manifest: manifest, library: path)
        }
    }

    @Test(
        "A plugin built against another major SDK, or a newer minor one: abiMismatch",
        arguments: ["3.0.0", "2.99.0"]
    )
    func abiMismatch(sdkVersion: String) async throws {
        try await expectQuarantine(.abiMismatch, mentioning: "built against NavHostKit \(sdkVersion)") { workspace in
            var manifest = try probeManifest()
            manifest.sdkVersion = try #require(NavHostKitVersion(sdkVersion))
            try workspace.add("Probe", manifest: manifest, library: TestPaths.builtLibrary("ProbePlugin"))
        }
    }

    @Test(
        "A shared object that dlopen refuses (it needs a library that is not there): libraryLoadFailed, with how to find out which"
    )
    func libraryLoadFailed() async throws {
        let registry = try await expectQuarantine(.libraryLoadFailed, mentioning: "libNavHostKiX.so") { workspace in
            // The Probe library, with its NEEDED entry for the SDK renamed: still an ELF shared object, so only
            // dlopen can refuse it, with dlerror()'s words.
            let original = try Data(contentsOf: URL(fileURLWithPath: TestPaths.builtLibrary("ProbePlugin")))
            let renamed = try #require(
                replacingAll(Data("libNavHostKit.so\0".utf8), with: Data("libNavHostKiX.so\0".utf8), in: original)
            )
            let path = "\(workspace.plugins)/../libProbePlugin.so"
            try renamed.write(to: URL(fileURLWithPath: path))
            var manifest = try probeManifest()
            manifest.sha256 = try SHA256.hexDigest(ofFileAt: path)
            try workspace.add("Probe", manifest: manifest, library: path)
        }
        let reason = registry.statuses.first { !$0.isLoaded }?.quarantineReason?.message ?? ""
        #expect(reason.hasSuffix("(ldd on its library lists what is not found)"), "\(reason)")
    }

    @Test("A debug build whose support library is not there is told to build in release")
    func debugBuildWithoutItsSupportLibrary() {
        // What dlerror() says on a machine without the toolchain; a test process, a debug build, has it mapped.
        let detail = "libswiftSwiftOnoneSupport.so: cannot open shared object file: No such file or directory"
        let remedy = PluginRegistry.remedy(forLoadFailure: detail)
        #expect(remedy?.contains("build it in release (make CONFIG=release") == true, "\(remedy ?? "")")
        #expect(PluginRegistry.remedy(forLoadFailure: "invalid ELF header") == nil)
    }

    // MARK: Code

    @Test("A library that exports no entry point: missingEntrySymbol")
    func missingEntrySymbol() async throws {
        try await expectQuarantine(.missingEntrySymbol, mentioning: "navhost_feature_entry") { workspace in
            let manifest = try PluginWorkspace.fixtureManifest(
                "EntrylessPlugin",
                name: "Entryless",
                routes: ["entryless.main"]
            )
            try workspace.add("Entryless", manifest: manifest, library: TestPaths.builtLibrary("EntrylessPlugin"))
        }
    }

    @Test("A module whose composition root throws: initialisationFailed, with the error")
    func initialisationFailed() async throws {
        let registry = try await expectQuarantine(.initialisationFailed, mentioning: "configuration is missing") {
            workspace in
            let manifest = try PluginWorkspace.fixtureManifest(
                "FailingPlugin",
                name: "Failing",
                routes: ["failing.main"]
            )
            try workspace.add("Failing", manifest: manifest, library: TestPaths.builtLibrary("FailingPlugin"))
        }
        #expect(registry.catalog.owner(ofRoute: "failing.main") == nil, "its route is not served")
    }

    @Test("A module that is not what its manifest describes: manifestMismatch", arguments: ["name", "routes"])
    func manifestMismatch(field: String) async throws {
        try await expectQuarantine(.manifestMismatch, mentioning: field == "name" ? "Prober" : "probe.other") {
            workspace in
            var manifest = try probeManifest()
            if field == "name" { manifest.name = "Prober" } else { manifest.routes = [.init(route: "probe.other")] }
            try workspace.add("Probe", manifest: manifest, library: TestPaths.builtLibrary("ProbePlugin"))
        }
    }

    // MARK: Dependencies and routes

    @Test("A plugin that needs a feature that is not installed: dependencyMissing")
    func dependencyMissing() async throws {
        try await expectQuarantine(.dependencyMissing, mentioning: "needs Payments >=1.0.0, which is not installed") {
            workspace in
            var manifest = try probeManifest()
            manifest.dependencies = [.init(name: "Payments", versions: try #require(VersionRange(">=1.0.0")))]
            try workspace.add("Probe", manifest: manifest, library: TestPaths.builtLibrary("ProbePlugin"))
        }
    }

    @Test("A plugin that needs Products 2.x while 1.0.0 is loaded: dependencyVersionMismatch")
    func dependencyOutOfRange() async throws {
        try await expectQuarantine(.dependencyVersionMismatch, mentioning: "1.0.0 is loaded") { workspace in
            var manifest = try probeManifest()
            manifest.dependencies = [.init(name: "Products", versions: try #require(VersionRange(">=2.0.0 <3.0.0")))]
            try workspace.add("Probe", manifest: manifest, library: TestPaths.builtLibrary("ProbePlugin"))
        }
    }

    @Test("Plugins that depend on each other: dependencyCycle for each, and neither is loaded")
    func dependencyCycle() async throws {
        let registry = try await expectQuarantine(.dependencyCycle, mentioning: "Failing, Probe") { workspace in
            var probe = try probeManifest()
            probe.dependencies = [.init(name: "Failing", versions: .any)]
            try workspace.add("Probe", manifest: probe, library: TestPaths.builtLibrary("ProbePlugin"))
            let failing = try PluginWorkspace.fixtureManifest(
                "FailingPlugin",
                name: "Failing",
                routes: ["failing.main"],
                dependencies: [.init(name: "Probe", versions: .any)]
            )
            try workspace.add("Failing", manifest: failing, library: TestPaths.builtLibrary("FailingPlugin"))
        }
        #expect(registry.status(named: "Failing")?.quarantineReason?.code == .dependencyCycle)
        #expect(registry.status(named: "Failing")?.libraryPath == nil, "its library was never opened")
    }

    @Test("A plugin offering a route Products offers: routeConflict, before its code is loaded")
    func routeConflict() async throws {
        let registry = try await expectQuarantine(.routeConflict, mentioning: "products.list", named: "Bargains") {
            workspace in
            // Bargains builds on the catalog, so Products loads first and keeps its route.
            let manifest = try PluginWorkspace.fixtureManifest(
                "ConflictingPlugin",
                name: "Bargains",
                routes: ["bargains.main", "products.list"],
                dependencies: [.init(name: "Products", versions: try #require(VersionRange("^1.0.0")))]
            )
            try workspace.add("Bargains", manifest: manifest, library: TestPaths.builtLibrary("ConflictingPlugin"))
        }
        #expect(registry.status(named: "Bargains")?.libraryPath == nil, "its library was never opened")
        #expect(registry.catalog.owner(ofRoute: "products.list") == "Products")
    }

    @Test("A second folder holding a plugin of the same name: duplicateName")
    func duplicateName() async throws {
        let registry = try await expectQuarantine(
            .duplicateName,
            mentioning: "Settings is already in",
            named: "Settings"
        ) { workspace in
            try workspace.link(staged: "Settings", as: "Settings-copy")
        }
        #expect(registry.status(named: "Settings")?.isLoaded == true)
    }

    @Test("A quarantined dependency takes its dependents with it, and the message says why")
    func cascade() async throws {
        let workspace = try PluginWorkspace(linking: ["Settings", "UserProfile"])
        defer { workspace.remove() }
        try workspace.addStaged("Products") { $0.sha256 = String(repeating: "a", count: 64) }
        try workspace.addStaged("Home") { manifest in
            for index in manifest.dependencies.indices { manifest.dependencies[index].isOptional = false }
        }
        let registry = workspace.makeRegistry()
        registry.loadAll(from: workspace.plugins)

        #expect(registry.status(named: "Products")?.quarantineReason?.code == .checksumMismatch)
        let home = try #require(registry.status(named: "Home")?.quarantineReason)
        #expect(home.code == .dependencyMissing)
        #expect(home.message.contains("Products >=1.0.0 <2.0.0, which was quarantined (checksumMismatch)"))
        #expect(registry.loadedPlugins.map(\.name) == ["Settings", "UserProfile"])

        let driver = try SessionDriver(catalog: registry.catalog, root: "settings.main")
        defer { driver.close() }
        try await driver.settle()
        #expect(driver.state["status"] == "loaded", "Settings still serves")
    }

    @Test("A missing plugins folder loads nothing, logs why, and does not throw")
    func missingFolder() throws {
        let logs = InMemoryLogHandler()
        let workspace = try PluginWorkspace(linking: [])
        defer { workspace.remove() }
        let registry = workspace.makeRegistry(logs: logs)
        #expect(registry.loadAll(from: "\(workspace.plugins)/nowhere").isEmpty)
        #expect(registry.scan("\(workspace.plugins)/nowhere").isEmpty)
        #expect(logs.entries.map(\.message.description) == Array(repeating: "Cannot read the plugins folder", count: 2))
    }
}

// MARK: - Helpers

/// Builds a workspace with the four examples and what `breakIt` adds, loads it through a registry, and checks that
/// the plugin `name` is quarantined for `code` with `detail` in its message, that the outcome was logged, and that
/// the examples loaded and serve the catalog through Home.
@MainActor
@discardableResult
private func expectQuarantine(
    _ code: QuarantineReason.Code,
    mentioning detail: String,
    named name: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ breakIt: (PluginWorkspace) throws -> Void
) async throws -> PluginRegistry {
    let workspace = try PluginWorkspace()
    defer { workspace.remove() }
    try breakIt(workspace)
    let logs = InMemoryLogHandler()
    let registry = workspace.makeRegistry(logs: logs)

    let outcomes = registry.loadAll(from: workspace.plugins)

    let quarantined = outcomes.filter { !$0.isLoaded }
    let broken = try #require(quarantined.first, "nothing was quarantined", sourceLocation: sourceLocation)
    if let name { #expect(broken.name == name, sourceLocation: sourceLocation) }
    #expect(broken.quarantineReason?.code == code, "\(broken)", sourceLocation: sourceLocation)
    #expect(broken.quarantineReason?.message.contains(detail) == true, "\(broken)", sourceLocation: sourceLocation)
    #expect(registry.statuses.contains(broken), "kept for the operator", sourceLocation: sourceLocation)
    let warning = logs.entries.first { $0.level == .warning && $0.metadata["navhost.plugin"] == "\(broken.name)" }
    #expect(warning?.metadata["navhost.plugin.reason"] == "\(code)", sourceLocation: sourceLocation)

    #expect(
        Set(registry.loadedPlugins.map(\.name)) == Set(PluginWorkspace.examples),
        "the examples still load",
        sourceLocation: sourceLocation
    )
    let catalog = try await catalogStateThroughHome(registry)
    #expect(catalog["status"] == "loaded", "and serve", sourceLocation: sourceLocation)
    #expect(catalog["value"]?["totalCount"] == 6, sourceLocation: sourceLocation)
    return registry
}

/// A manifest broken in one way, and what the quarantine message must name.
enum BrokenManifest: CaseIterable, Sendable {
    case notJSON, missingVersion, misspeltField, badRouteID, badVersion

    func text() throws -> String {
        let valid = try probeManifestText()
        switch self {
        case .notJSON: return "{ this is not json"
        case .missingVersion: return #"{"name": "Probe"}"#
        case .misspeltField: return valid.replacingOccurrences(of: #""summary""#, with: #""sumary""#)
        case .badRouteID: return valid.replacingOccurrences(of: #""probe.main""#, with: #""probe""#)
        case .badVersion: return valid.replacingOccurrences(of: #""version": "1.0.0""#, with: #""version": "1.0""#)
        }
    }

    var detail: String {
        switch self {
        case .notJSON: "notJSON"
        case .missingVersion: "missingField at version"
        case .misspeltField: #"unknownField at sumary: the format has no field "sumary" (did you mean "summary"?)"#
        case .badRouteID: "invalidField at routes[0].route"
        case .badVersion: "invalidField at version"
        }
    }
}

/// The Probe fixture's manifest: `libProbePlugin.so`, one route `probe.main`.
private func probeManifest() throws -> PluginManifest {
    try PluginWorkspace.fixtureManifest("ProbePlugin", name: "Probe", routes: ["probe.main"])
}

/// The Probe fixture's manifest as `manifest.json` holds it.
private func probeManifestText() throws -> String {
    String(decoding: try probeManifest().jsonBytes(), as: UTF8.self)
}

/// Writes `text` to the file `name` beside the workspace's plugins folder.
private func writeFile(_ text: String, in workspace: PluginWorkspace, named name: String) throws -> String {
    let path = "\(workspace.plugins)/../\(name)"
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

/// `data` with every `pattern` replaced by `replacement` (of the same length); `nil` when `pattern` is not there.
private func replacingAll(_ pattern: Data, with replacement: Data, in data: Data) -> Data? {
    precondition(pattern.count == replacement.count)
    var bytes = [UInt8](data)
    var found = false
    var index = 0
    while index + pattern.count <= bytes.count {
        if bytes[index..<index + pattern.count].elementsEqual(pattern) {
            bytes.replaceSubrange(index..<index + pattern.count, with: replacement)
            found = true
            index += pattern.count
        } else {
            index += 1
        }
    }
    return found ? Data(bytes) : nil
}

/// The first 64 bytes of a 64-bit little-endian ELF file of type `objectType` for machine `machine`.
private func craftedELFHeader(objectType: UInt16, machine: UInt16) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: 64)
    bytes[0..<7] = [0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]
    bytes[16] = UInt8(objectType & 0xff)
    bytes[17] = UInt8(objectType >> 8)
    bytes[18] = UInt8(machine & 0xff)
    bytes[19] = UInt8(machine >> 8)
    return bytes
}
