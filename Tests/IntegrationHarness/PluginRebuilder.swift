import Foundation
import NavHostJSON

/// Builds an example plugin again, from an edited copy of its sources, while the tests run: a real new build that
/// runs different code, staged like `make build` stages the original, for tests of reloading a changed plugin.
///
/// ```swift
/// let rebuilt = try await PluginRebuilder.rebuild(
///     plugin: "Settings",
///     editing: [(file: "Sources/Domain/Entities/Preferences.swift", replace: "theme: .system", with: "theme: .dark")],
///     version: "1.1.0"
/// )
/// try PluginRebuilder.deploy(rebuilt, into: pluginsFolder)  // then Reload, SIGHUP, or let the daemon notice
/// ```
///
/// `swift build` cannot run inside `swift test` (SwiftPM holds a lock on `.build`), and would take far longer, so the
/// rebuilder calls `swiftc` itself, against what the package build left in ``TestPaths/buildDirectory``: the
/// interfaces of NavHostKit and of the modules it exposes (`Modules/`), and `libNavHostKit.so`. It builds the two
/// targets Package.swift makes of a plugin, `<Name>Feature` and `<Name>FeatureEntry`, as two modules, and links them
/// into one `lib<Name>Feature.so` against `libNavHostKit.so` with the options SwiftPM's link uses, so the library
/// needs the same shared libraries as SwiftPM's and holds no copy of the SDK's code. Then
/// `navhost-plugin-tool stage` writes its manifest (new version, SHA-256, routes read from the library) in a
/// process of its own, so the test process never maps the new code. A rebuild took 1.3 to 2.3 seconds on two shared
/// cores; the first in a test process also fills its Clang module cache (one per process, never SwiftPM's).
package enum PluginRebuilder {
    /// An edit of one source file, relative to the plugin's folder: `replace` must occur exactly once in it.
    package typealias Edit = (file: String, replace: String, with: String)

    /// A staged build: `manifest.json`, the library and the resources, in a folder named after the plugin.
    package struct RebuiltPlugin: Sendable {
        /// The feature's name, like `Settings`.
        package var name: String
        /// The version its manifest gives.
        package var version: String
        /// The staged folder, `<temporary>/staged/<Name>`.
        package var directory: String
        /// The SHA-256 of its library, as its manifest gives it.
        package var sha256: String
        /// The library's path in ``directory``.
        package var library: String { "\(directory)/lib\(name)Feature.so" }
    }

    /// A step of a rebuild failed; `message` says which and, for a compiler, what it printed.
    package struct Failure: Error, CustomStringConvertible {
        package var message: String
        package var description: String { "rebuilding a plugin: \(message)" }
    }

    // MARK: Public Functions

    /// Copies `Plugins/<plugin>` (its `plugin.json`, `Sources/`, `Entry/` and `Resources/`) to a fresh temporary
    /// folder, applies `edits`, sets the version to `version`, compiles it, and stages it there.
    ///
    /// - Throws: ``Failure`` when an edit's text is not found exactly once, or a compiler or the stager fails.
    package static func rebuild(plugin name: String, editing edits: [Edit] = [], version: String) async throws
        -> RebuiltPlugin
    {
        let work = try TestPaths.temporaryDirectory() + "/rebuild-\(name)-\(version)"
        let source = "\(work)/source/\(name)"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        for part in ["plugin.json", "Sources", "Entry", "Resources"] {
            let original = "\(TestPaths.packageRoot)/Plugins/\(name)/\(part)"
            guard FileManager.default.fileExists(atPath: original) else { continue }
            try FileManager.default.copyItem(atPath: original, toPath: "\(source)/\(part)")
        }
        for edit in edits { try apply(edit, in: source) }
        try setVersion(version, ofPluginIn: source)

        try await compile(name, from: source, into: "\(work)/build")
        try await run(
            TestPaths.builtExecutable("navhost-plugin-tool"),
            ["stage", "--build-dir", "\(work)/build", "--output", "\(work)/staged", source]
        )
        let directory = "\(work)/staged/\(name)"
        let manifest = try JSONParser().parse(
            Array(try Data(contentsOf: URL(fileURLWithPath: "\(directory)/manifest.json")))
        )
        guard let staged = manifest["version"]?.stringValue, let sha256 = manifest["sha256"]?.stringValue else {
            throw Failure(message: "\(directory)/manifest.json has no version or sha256")
        }
        return RebuiltPlugin(name: name, version: staged, directory: directory, sha256: sha256)
    }

    /// Deploys `plugin` as an operator would (``TestPlugins/deploy(folder:as:into:edit:)``): copied beside its
    /// place, then renamed into `<plugins>/<Name>`.
    package static func deploy(_ plugin: RebuiltPlugin, into plugins: String) throws {
        try TestPlugins.deploy(folder: plugin.directory, as: plugin.name, into: plugins)
    }

    /// Writes `plugin` over `<plugins>/<Name>/` in place, as a slow copy would
    /// (``TestPlugins/writeInPlace(folder:as:into:manifestFirst:chunks:pause:)``).
    package static func writeInPlace(
        _ plugin: RebuiltPlugin,
        into plugins: String,
        manifestFirst: Bool = true,
        chunks: Int = 4,
        pause: Duration = .milliseconds(100)
    ) async throws {
        try await TestPlugins.writeInPlace(
            folder: plugin.directory,
            as: plugin.name,
            into: plugins,
            manifestFirst: manifestFirst,
            chunks: chunks,
            pause: pause
        )
    }
}

// MARK: - Private Functions

extension PluginRebuilder {
    /// One Clang module cache per test process. SwiftPM's own (`<build>/ModuleCache`) is never written: its
    /// precompiled modules name the build folder by its real path and `swift build` must find them as it left them.
    private static let moduleCache = FileManager.default.temporaryDirectory
        .appendingPathComponent("navhost-rebuild-module-cache-\(getpid())").path

    /// Replaces the one occurrence of `edit.replace` in `edit.file`.
    private static func apply(_ edit: Edit, in source: String) throws {
        let path = "\(source)/\(edit.file)"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw Failure(message: "cannot edit \(edit.file): no such file in \(source)")
        }
        let count = text.ranges(of: edit.replace).count
        guard count == 1 else {
            throw Failure(message: "\(edit.file) holds \(count) occurrences of \(edit.replace.debugDescription), not 1")
        }
        try text.replacingOccurrences(of: edit.replace, with: edit.with).write(
            toFile: path,
            atomically: true,
            encoding: .utf8
        )
    }

    /// Sets `version` in the copied `plugin.json`, which the stager reads it from.
    private static func setVersion(_ version: String, ofPluginIn source: String) throws {
        let url = URL(fileURLWithPath: "\(source)/plugin.json")
        guard case .object(var members) = try JSONParser().parse(Array(try Data(contentsOf: url))) else {
            throw Failure(message: "\(url.path) is not a JSON object")
        }
        members["version"] = .string(version)
        try Data(JSONValue.object(members).serializedBytes()).write(to: url)
    }

    /// Compiles `<Name>Feature` (the plugin's `Sources/`) and `<Name>FeatureEntry` (its `Entry/`) as SwiftPM's debug
    /// build does, and links both into `<output>/lib<Name>Feature.so`, the file the stager looks for.
    private static func compile(_ name: String, from source: String, into output: String) async throws {
        // The real path: the build folder is usually reached through the `.build/debug` symbolic link.
        let build = URL(fileURLWithPath: TestPaths.buildDirectory).resolvingSymlinksInPath().path
        let modules = "\(output)/Modules"
        try FileManager.default.createDirectory(atPath: modules, withIntermediateDirectories: true)
        let options = [
            // The language settings Package.swift gives every target.
            "-swift-version", "6", "-enable-upcoming-feature", "ExistentialAny",
            "-enable-upcoming-feature", "InternalImportsByDefault",
            // SwiftPM's debug build. -enable-testing exports internal symbols, as there: the library's dynamic
            // symbol table is then the same as SwiftPM's.
            "-Onone", "-g", "-enable-testing", "-DSWIFT_PACKAGE", "-DDEBUG", "-parse-as-library",
            // The feature's `package func make<Name>Feature()` is called from the entry module: one package.
            "-package-name", "NavHostPluginRebuild",
            "-module-cache-path", moduleCache,
        ]
        try await swiftc(
            ["-c", "-wmo", "-module-name", "\(name)Feature", "-emit-module"]
                + ["-emit-module-path", "\(modules)/\(name)Feature.swiftmodule"] + options
                + ["-I", "\(build)/Modules", "-o", "\(output)/\(name)Feature.o"]
                + (try swiftFiles(in: "\(source)/Sources"))
        )
        // The new feature module first: the build's Modules/ holds the old one under the same name.
        try await swiftc(
            ["-c", "-module-name", "\(name)FeatureEntry"] + options
                + ["-I", modules, "-I", "\(build)/Modules", "-o", "\(output)/\(name)FeatureEntry.o"]
                + (try swiftFiles(in: "\(source)/Entry"))
        )
        // SwiftPM's link of a `.dynamic` product: the SDK by name from the build folder, found at run time beside
        // the library or, as in the daemon, already loaded.
        try await swiftc([
            "-emit-library", "-module-name", "\(name)Feature", "-g", "-L", build, "-lNavHostKit",
            "-Xlinker", "-rpath=$ORIGIN", "-o", "\(output)/lib\(name)Feature.so",
            "\(output)/\(name)Feature.o", "\(output)/\(name)FeatureEntry.o",
        ])
    }

    /// Runs the `swiftc` on `PATH`: the toolchain that built the package, whose module format it must read.
    private static func swiftc(_ arguments: [String]) async throws {
        try await run("/usr/bin/env", ["swiftc"] + arguments)
    }

    /// Runs a program to its end; throws what it printed if it fails.
    private static func run(_ executable: String, _ arguments: [String]) async throws {
        let result = try await ChildProcess.run(executable, arguments, limit: .seconds(300))
        guard result.status == 0 else {
            let command = ([executable] + arguments).joined(separator: " ")
            throw Failure(message: "\(command) exited with \(result.status):\n\(result.errors)\(result.output)")
        }
    }

    /// The `.swift` files under `folder`, sorted.
    private static func swiftFiles(in folder: String) throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: folder).filter { $0.hasSuffix(".swift") }.sorted().map {
            "\(folder)/\($0)"
        }
    }
}
