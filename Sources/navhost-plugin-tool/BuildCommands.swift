import ArgumentParser
import NavHostCore
import NavHostKit
import NavHostPluginTools
import NavHostStorage

// MARK: - manifest

extension NavHostPluginTool {
    /// Prints the manifest the build would stage for one plugin.
    struct Manifest: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Prints a plugin's manifest.json, from its plugin.json and its built library."
        )

        @OptionGroup var build: BuildOptions

        @Argument(help: "The plugin's source folder, holding plugin.json, like Plugins/Products.")
        var plugin: String

        func run() throws {
            let source = try PluginSource(folder: plugin)
            let manifest = try ManifestBuilder.manifest(
                for: source,
                libraryPath: "\(build.buildDir)/\(source.libraryName)"
            )
            print(String(decoding: try manifest.jsonBytes(), as: UTF8.self), terminator: "")
        }
    }
}

// MARK: - stage

extension NavHostPluginTool {
    /// Stages plugins where the daemon loads them from.
    struct Stage: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Writes <output>/<Name>/ with manifest.json, the library and the resources, for each plugin."
        )

        @OptionGroup var build: BuildOptions

        @Option(help: "The plugins folder to write; by default <build-dir>/plugins.")
        var output: String?

        @Argument(
            help: """
                The plugins' source folders, like Plugins/Products; by default the current folder when it holds \
                plugin.json (a plugin's own package), otherwise every plugin in Plugins/.
                """
        )
        var plugins: [String] = []

        func run() throws {
            let folders =
                if !plugins.isEmpty {
                    plugins
                } else if FileIO.kind(of: PluginSource.fileName) == .regularFile {
                    ["."]
                } else {
                    try PluginStager.pluginFolders(in: "Plugins")
                }
            let output = output ?? "\(build.buildDir)/plugins"
            for folder in folders {
                let staged = try PluginStager.stage(
                    pluginFolder: folder,
                    buildDirectory: build.buildDir,
                    outputDirectory: output
                )
                let routes = staged.manifest.routeIDs.joined(separator: ", ")
                print("staged \(staged.manifest.name) \(staged.manifest.version) in \(staged.directory): \(routes)")
                var warnings = PluginStager.sdkWarning(for: staged.manifest).map { [$0] } ?? []
                if !staged.unlistedResources.isEmpty {
                    warnings.append(
                        "Resources/ holds \(staged.unlistedResources.joined(separator: ", ")), which plugin.json does "
                            + "not list in resources: not staged, so the plugin cannot read it in the daemon"
                    )
                }
                for warning in warnings { printToStandardError("warning: \(warning)") }
            }
        }
    }
}

// MARK: - new

extension NavHostPluginTool {
    /// Scaffolds a feature plugin.
    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: """
                Creates a feature that builds, passes its tests and loads as it is: Plugins/<Name>/ in this \
                repository, or a package of its own with --out-of-tree.
                """
        )

        @Argument(help: "The feature's name: a capital letter, then letters and digits, like Orders.")
        var name: String

        @Option(help: "The package folder, holding Package.swift and Plugins/.")
        var packageDir = "."

        @Option(
            help: """
                Make a package of its own in this folder (new, empty, or a clone holding only .git), anywhere on \
                disk, built against the SDK this tool was installed with (no NavHost checkout needed).
                """
        )
        var outOfTree: String?

        @Option(help: "The name of one item of the feature's list; by default the name without a final s.")
        var entity: String?

        @Option(help: "The first part of the feature's route IDs; by default the name in lower camel case.")
        var namespace: String?

        func run() throws {
            let scaffold = try FeatureScaffold(name: name, entity: entity, namespace: namespace)
            if let outOfTree {
                let sdk = try SDKInstallation.containingThisTool()
                let folder = try scaffold.write(outOfTree: outOfTree, sdkDirectory: sdk.directory)
                print(
                    """
                    created \(folder): the \(name) plugin, route \(scaffold.namespace).list, against NavHostKit \
                    \(NavHostKitVersion.current) in \(sdk.directory)
                    next: cd \(folder)
                          make && make test    build and stage lib\(name)Feature.so, run its tests
                          make install         hand it to a running navhostd (or PLUGINDIR=…)
                    """
                )
                return
            }
            let folder = try scaffold.write(intoPackage: packageDir)
            print(
                """
                created \(folder) (\(scaffold.files.count) files), route \(scaffold.namespace).list
                next: make test TEST_FILTER=\(name)FeatureTests    builds lib\(name)Feature.so, stages it, runs its tests
                      make run    starts navhostd with it
                (make test alone runs the whole suite. SwiftPM caches Package.swift by its text, not by the folders
                 it lists: outside make, run `swift build --manifest-cache none` once so that it sees the new plugin.)
                """
            )
        }
    }
}
