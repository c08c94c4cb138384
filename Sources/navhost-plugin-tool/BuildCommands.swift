import ArgumentParser
import NavHostCore
import NavHostPluginTools

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

        @Argument(help: "The plugins' source folders, like Plugins/Products; by default every one in Plugins/.")
        var plugins: [String] = []

        func run() throws {
            let folders = plugins.isEmpty ? try PluginStager.pluginFolders(in: "Plugins") : plugins
            let output = output ?? "\(build.buildDir)/plugins"
            for folder in folders {
                let staged = try PluginStager.stage(
                    pluginFolder: folder,
                    buildDirectory: build.buildDir,
                    outputDirectory: output
                )
                let routes = staged.manifest.routeIDs.joined(separator: ", ")
                print("staged \(staged.manifest.name) \(staged.manifest.version) in \(staged.directory): \(routes)")
            }
        }
    }
}
