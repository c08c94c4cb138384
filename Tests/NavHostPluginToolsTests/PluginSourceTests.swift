import Foundation
import IntegrationHarness
import NavHostCore
import NavHostKit
import NavHostPluginHost
import NavHostPluginTools
import Testing

@Suite("plugin.json, the hand-written part of a manifest")
struct PluginSourceTests {
    @Test("Every example plugin's plugin.json reads")
    func examplesRead() throws {
        for name in ["Home", "Products", "Settings", "UserProfile"] {
            let source = try PluginSource(folder: "\(ToolTestPaths.package)/Plugins/\(name)")
            #expect(source.name == name)
            #expect(source.libraryName == "lib\(name)Feature.so")
        }
    }

    @Test("Dependencies and resources may be left out")
    func optionalFields() throws {
        let source = try PluginSource(jsonBytes: Array(#"{"name": "Orders", "version": "0.1.0", "summary": "x"}"#.utf8))
        #expect(source.dependencies.isEmpty && source.resources.isEmpty)
        #expect(try PluginSource(jsonBytes: source.jsonBytes()) == source)
    }

    @Test(
        "A misspelt field, a bad name, a bad range or a resource outside the folder is refused, naming the field",
        arguments: [
            (#"{"name": "Orders", "version": "0.1.0", "summary": "x", "resource": []}"#, "resource"),
            (#"{"name": "Or ders", "version": "0.1.0", "summary": "x"}"#, "name"),
            (#"{"name": "Orders", "version": "0.1", "summary": "x"}"#, "version"),
            (#"{"name": "Orders", "version": "0.1.0"}"#, "summary"),
            (
                #"{"name": "Orders", "version": "0.1.0", "summary": "x", "dependencies": [{"name": "A", "versions": "1"}]}"#,
                "dependencies[0].versions"
            ),
            (#"{"name": "Orders", "version": "0.1.0", "summary": "x", "resources": ["../secret"]}"#, "resources[0]"),
        ]
    )
    func refused(text: String, field: String) throws {
        let error = try #require(throws: PluginManifestError.self) { try PluginSource(jsonBytes: Array(text.utf8)) }
        #expect(error.field == field, "\(error)")
    }

    /// A field spelt like none of plugin.json's is named alone; one of manifest.json's, which stage writes, is said
    /// to belong there.
    @Test(
        "stage names a misspelt field of plugin.json's likely fix, and the file a field of manifest.json belongs in",
        arguments: [
            // The file has "summary" already: renamed to it, the member would be there twice.
            ("summay", #"the format has no field "summay"; the fields are "#),
            ("dependecies", #"the format has no field "dependecies" (did you mean "dependencies"?); the fields are "#),
            ("entryPoint", #"the format has no field "entryPoint"; the fields are "#),
            (
                "routes",
                #""routes" belongs in manifest.json, not plugin.json: navhost-plugin-tool stage writes it from the "#
                    + "built library; the fields are "
            ),
            (
                "sha256",
                #""sha256" belongs in manifest.json, not plugin.json: navhost-plugin-tool stage writes it from the "#
                    + "built library; the fields are "
            ),
        ]
    )
    func stageOfAMisspeltField(field: String, message: String) async throws {
        let work = try ToolTestPaths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let plugin = "\(work)/Orders"
        try FileManager.default.createDirectory(atPath: plugin, withIntermediateDirectories: true)
        try #"{"name": "Orders", "version": "0.1.0", "summary": "x", "\#(field)": "x"}"#
            .write(toFile: "\(plugin)/plugin.json", atomically: true, encoding: .utf8)

        let run = try await ChildProcess.run(
            TestPaths.builtExecutable("navhost-plugin-tool"),
            ["stage", "--build-dir", ToolTestPaths.buildDirectory, "--output", "\(work)/out", plugin]
        )

        #expect(run.status == 1)
        #expect(
            run.errors
                == "Error: badSource: \(plugin)/plugin.json: unknownField at \(field): \(message)"
                + "dependencies, name, resources, summary, version\n",
            "\(run.errors)"
        )
        #expect(!FileManager.default.fileExists(atPath: "\(work)/out/Orders"), "nothing staged")
    }
}
