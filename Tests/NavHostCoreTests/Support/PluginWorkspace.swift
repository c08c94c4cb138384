import Foundation
import InMemoryLogging
import IntegrationHarness
import Logging
import NavHostKit

@testable import NavHostCore
@testable import NavHostPluginHost
@testable import NavHostStorage

/// A plugins folder and a state folder for one test, filled from the plugins `make build` staged and from the
/// fixture libraries the package builds; ``remove()`` deletes both.
///
/// A plugin a test leaves alone is linked in (its folder is a symbolic link to the staged one), so `dlopen` finds
/// the image it already mapped. A plugin a test breaks gets a folder of its own with its own `manifest.json`; its
/// library, when it has one, is a link to the real file.
struct PluginWorkspace {
    /// The four example plugins.
    static let examples = ["Home", "Products", "Settings", "UserProfile"]

    private let root: TemporaryDirectory

    /// The plugins folder the registry loads.
    var plugins: String { "\(root.path)/plugins" }
    /// The state folder the stores live in.
    var state: String { "\(root.path)/state" }

    /// Creates the folders and links in the staged plugins `examples`.
    init(linking examples: [String] = PluginWorkspace.examples) throws {
        root = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        for name in examples { try link(staged: name) }
    }

    /// Deletes the workspace.
    func remove() {
        root.remove()
    }

    /// Links the staged plugin `name` in unchanged, as the folder `folder` (by default its name).
    func link(staged name: String, as folder: String? = nil) throws {
        let staged = try Self.stagedDirectory(name)
        try FileManager.default.createSymbolicLink(atPath: "\(plugins)/\(folder ?? name)", withDestinationPath: staged)
    }

    /// Adds the plugin folder `folder` with `manifest` (or the raw text `manifestText`), and the file `library`
    /// linked in under the manifest's library name.
    @discardableResult
    func add(
        _ folder: String,
        manifest: PluginManifest? = nil,
        manifestText: String? = nil,
        library: String? = nil
    ) throws -> String {
        let directory = "\(plugins)/\(folder)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if let manifest {
            try Data(try manifest.jsonBytes()).write(to: URL(fileURLWithPath: "\(directory)/manifest.json"))
        } else if let manifestText {
            try manifestText.write(toFile: "\(directory)/manifest.json", atomically: true, encoding: .utf8)
        }
        if let library, let name = manifest?.library {
            try FileManager.default.createSymbolicLink(atPath: "\(directory)/\(name)", withDestinationPath: library)
        }
        return directory
    }

    /// Adds a copy of the staged plugin `name` whose manifest `change` edits; its library and resources are linked.
    @discardableResult
    func addStaged(_ name: String, as folder: String? = nil, editing change: (inout PluginManifest) -> Void) throws
        -> String
    {
        var manifest = try Self.stagedManifest(name)
        change(&manifest)
        let staged = try Self.stagedDirectory(name)
        let directory = try add(folder ?? name, manifest: manifest)
        for file in [manifest.library] + manifest.resources {
            try FileManager.default.createSymbolicLink(
                atPath: "\(directory)/\(file)",
                withDestinationPath: "\(staged)/\(file)"
            )
        }
        return directory
    }

    /// A registry over this workspace's state folder.
    @MainActor
    func makeRegistry(
        sdkVersion: NavHostKitVersion = .current,
        logs: InMemoryLogHandler = InMemoryLogHandler()
    ) -> PluginRegistry {
        PluginRegistry(
            catalog: FeatureCatalog(),
            stateDirectory: state,
            sdkVersion: sdkVersion,
            logger: Logger(label: "navhost.test") { _ in logs }
        )
    }

    // MARK: Fixtures

    /// The manifest `make build` staged for the example plugin `name`.
    static func stagedManifest(_ name: String) throws -> PluginManifest {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: "\(try stagedDirectory(name))/manifest.json"))
        return try PluginManifest(jsonBytes: bytes)
    }

    /// The folder `make build` staged the example plugin `name` in.
    static func stagedDirectory(_ name: String) throws -> String {
        let directory = "\(TestPaths.stagedPlugins)/\(name)"
        guard FileManager.default.fileExists(atPath: "\(directory)/manifest.json") else {
            throw StagedPluginsMissing(directory: directory)
        }
        return directory
    }

    /// A manifest for the fixture library `product` that the package builds (like `ProbePlugin`), with its real
    /// digest; its routes have no parameters and no intents, as the fixtures' screens.
    static func fixtureManifest(
        _ product: String,
        name: String,
        routes: [String],
        dependencies: [PluginManifest.Dependency] = []
    ) throws -> PluginManifest {
        PluginManifest(
            name: name,
            version: SemanticVersion(1, 0, 0),
            summary: "The \(product) fixture.",
            sdkVersion: .current,
            library: "lib\(product).so",
            sha256: try SHA256.hexDigest(ofFileAt: TestPaths.builtLibrary(product)),
            routes: routes.map { PluginManifest.Route(route: $0) },
            dependencies: dependencies
        )
    }
}

/// `make build` has not staged the example plugins the test needs.
struct StagedPluginsMissing: Error, CustomStringConvertible {
    var directory: String
    var description: String { "\(directory) holds no manifest.json: run `make build` (or `make test`) first" }
}
