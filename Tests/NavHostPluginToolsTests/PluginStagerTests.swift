import Foundation
import IntegrationHarness
import NavHostCore
import NavHostKit
import NavHostPluginHost
import NavHostPluginTools
import NavHostStorage
import Testing

@Suite("Manifests and staging, from the libraries the package built")
struct PluginStagerTests {
    @Test("The manifest's routes are the built library's screens; its digest is the library's")
    func manifestFromTheLibrary() throws {
        let source = try PluginSource(folder: "\(ToolTestPaths.package)/Plugins/Products")
        let library = "\(ToolTestPaths.buildDirectory)/libProductsFeature.so"

        let manifest = try ManifestBuilder.manifest(for: source, libraryPath: library)

        #expect(manifest.name == "Products" && manifest.version == source.version)
        #expect(manifest.sdkVersion == NavHostKitVersion.current)
        #expect(manifest.routeIDs == ["products.list", "products.detail"])
        #expect(manifest.routes[1].parameters == ["productID"])
        #expect(manifest.routes[1].intents == ["onTappedRetry", "onTappedSeller"])
        #expect(manifest.sha256 == (try SHA256.hexDigest(ofFileAt: library)))
        #expect(manifest.dependencies == source.dependencies && manifest.resources == ["products.json"])
    }

    @Test("A library built against a newer minor SDK than the tool's is staged with a warning that says why")
    func newerSDKWarns() throws {
        let source = try PluginSource(folder: "\(ToolTestPaths.package)/Plugins/Products")
        var manifest = try ManifestBuilder.manifest(
            for: source,
            libraryPath: "\(ToolTestPaths.buildDirectory)/libProductsFeature.so"
        )
        #expect(PluginStager.sdkWarning(for: manifest) == nil, "built against the tool's own SDK")
        let current = NavHostKitVersion.current
        manifest.sdkVersion = try #require(NavHostKitVersion("\(current.major).\(current.minor + 1).0"))
        let warning = try #require(PluginStager.sdkWarning(for: manifest))
        #expect(warning.contains("abiMismatch") && warning.contains("NAVHOST_SDK"), "\(warning)")
        manifest.sdkVersion = try #require(NavHostKitVersion("\(current.major + 1).0.0"))
        let otherMajor = try #require(PluginStager.sdkWarning(for: manifest))
        #expect(otherMajor.contains("or a later \(current.major + 1).x (another major version)"), "\(otherMajor)")
    }

    @Test("A library holding another feature than plugin.json names is refused")
    func wrongLibrary() throws {
        let source = try PluginSource(folder: "\(ToolTestPaths.package)/Plugins/Products")
        let error = try #require(throws: PluginToolError.self) {
            try ManifestBuilder.manifest(
                for: source,
                libraryPath: "\(ToolTestPaths.buildDirectory)/libSettingsFeature.so"
            )
        }
        #expect(error.code == .moduleMismatch)
    }

    @Test("Staging writes the manifest, the library and the resources, and staging again replaces them")
    func stage() throws {
        let output = try ToolTestPaths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: output) }

        for _ in 0..<2 {
            let staged = try PluginStager.stage(
                pluginFolder: "\(ToolTestPaths.package)/Plugins/Products",
                buildDirectory: ToolTestPaths.buildDirectory,
                outputDirectory: output
            )
            #expect(staged.directory == "\(output)/Products")
        }

        #expect(try FileManager.default.contentsOfDirectory(atPath: output) == ["Products"], "nothing left behind")
        let files = try FileManager.default.contentsOfDirectory(atPath: "\(output)/Products").sorted()
        #expect(files == ["libProductsFeature.so", "manifest.json", "products.json"])
        let manifest = try PluginManifest(
            jsonBytes: Data(contentsOf: URL(fileURLWithPath: "\(output)/Products/manifest.json"))
        )
        #expect(manifest.sha256 == (try SHA256.hexDigest(ofFileAt: "\(output)/Products/libProductsFeature.so")))
        #expect(
            FileManager.default.contentsEqual(
                atPath: "\(output)/Products/products.json",
                andPath: "\(ToolTestPaths.package)/Plugins/Products/Resources/products.json"
            )
        )
    }

    @Test("A file in Resources/ that plugin.json does not list is not staged, and staging says so")
    func unlistedResources() throws {
        let work = try ToolTestPaths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let files = FileManager.default
        try files.copyItem(atPath: "\(ToolTestPaths.package)/Plugins/Products", toPath: "\(work)/Products")
        try files.createDirectory(atPath: "\(work)/Products/Resources/icons", withIntermediateDirectories: true)
        files.createFile(atPath: "\(work)/Products/Resources/icons/star.svg", contents: Data("<svg/>".utf8))

        let staged = try PluginStager.stage(
            pluginFolder: "\(work)/Products",
            buildDirectory: ToolTestPaths.buildDirectory,
            outputDirectory: "\(work)/out"
        )

        #expect(staged.unlistedResources == ["icons/star.svg"])
        #expect(!files.fileExists(atPath: "\(work)/out/Products/icons"))
        let listedOnly = try PluginStager.stage(
            pluginFolder: "\(ToolTestPaths.package)/Plugins/Products",
            buildDirectory: ToolTestPaths.buildDirectory,
            outputDirectory: "\(work)/out"
        )
        #expect(listedOnly.unlistedResources.isEmpty)
    }

    @Test("A library that was not built, or a resource that is not there, stops staging with a reason")
    func failures() throws {
        let output = try ToolTestPaths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: output) }
        let notBuilt = try #require(throws: PluginToolError.self) {
            try PluginStager.stage(
                pluginFolder: "\(ToolTestPaths.package)/Plugins/Products",
                buildDirectory: output,
                outputDirectory: output
            )
        }
        #expect(notBuilt.code == .libraryNotBuilt)
        #expect(notBuilt.message.contains("does not exist: build the package first"), "\(notBuilt.message)")

        // A plugin.json whose name is not the package's: the build folder holds the package's library instead.
        let misnamed = "\(output)/Source/Setting"
        try FileManager.default.createDirectory(atPath: misnamed, withIntermediateDirectories: true)
        try #"{"name": "Setting", "version": "1.0.0", "summary": "x"}"#
            .write(toFile: "\(misnamed)/plugin.json", atomically: true, encoding: .utf8)
        let wrongName = try #require(throws: PluginToolError.self) {
            try PluginStager.stage(
                pluginFolder: misnamed,
                buildDirectory: ToolTestPaths.buildDirectory,
                outputDirectory: output
            )
        }
        #expect(wrongName.code == .libraryNotBuilt)
        #expect(
            wrongName.message.contains("libSettingsFeature.so")
                && wrongName.message.contains("must be the package's product SettingFeature"),
            "\(wrongName.message)"
        )

        let plugin = "\(output)/Source/Settings"
        try FileManager.default.createDirectory(atPath: plugin, withIntermediateDirectories: true)
        try #"{"name": "Settings", "version": "1.0.0", "summary": "x", "resources": ["missing.json"]}"#
            .write(toFile: "\(plugin)/plugin.json", atomically: true, encoding: .utf8)
        let missing = try #require(throws: PluginToolError.self) {
            try PluginStager.stage(
                pluginFolder: plugin,
                buildDirectory: ToolTestPaths.buildDirectory,
                outputDirectory: output
            )
        }
        #expect(missing.code == .badSource && missing.message.contains("missing.json"))
    }

    @Test("Staging under a umask of 002 gives the plugin modes navhostd takes: written by its owner alone")
    func stageUnderAGroupWritableUmask() async throws {
        let work = try ToolTestPaths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: work) }
        // Staged by the tool itself, in a shell whose umask lets the group write what it makes (a user's private
        // group, a shared build machine): the folder it makes for the plugins too.
        let tool = TestPaths.builtExecutable("navhost-plugin-tool")
        let run = try await ChildProcess.run(
            "/bin/sh",
            [
                "-c", "umask 002 && exec \"$0\" stage --build-dir \"$1\" --output \"$2\" \"$3\"", tool,
                ToolTestPaths.buildDirectory, "\(work)/plugins", "\(ToolTestPaths.package)/Plugins/Products",
            ]
        )
        #expect(run.status == 0, "\(run.errors)")
        let staged = "\(work)/plugins/Products"
        var modes: [String: String] = [:]
        for path in [
            "\(work)/plugins", staged, "\(staged)/libProductsFeature.so", "\(staged)/manifest.json",
            "\(staged)/products.json",
        ] {
            var status = stat()
            #expect(stat(path, &status) == 0, "\(path)")
            modes[String(path.dropFirst(work.count + 1))] = String(status.st_mode & 0o777, radix: 8)
        }
        #expect(
            modes == [
                "plugins": "755", "plugins/Products": "755", "plugins/Products/libProductsFeature.so": "755",
                "plugins/Products/manifest.json": "644", "plugins/Products/products.json": "644",
            ]
        )
        #expect(PathSafety.problem(with: "\(staged)/manifest.json", "\(staged)/libProductsFeature.so") == nil)
    }
}
