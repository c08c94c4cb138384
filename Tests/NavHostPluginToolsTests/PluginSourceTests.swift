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
}
