import Foundation
import NavHostKit
import Testing

@testable import NavHostCore
@testable import NavHostPluginHost

@Suite("Plugin manifests")
struct PluginManifestTests {
    /// A manifest whose every field is valid.
    static let valid = """
        {
            "name": "Orders",
            "version": "1.2.0",
            "summary": "Orders.",
            "sdkVersion": "1.0.0",
            "library": "libOrdersFeature.so",
            "sha256": "\(String(repeating: "ab", count: 32))",
            "routes": [
                {"route": "orders.list", "parameters": [], "intents": ["onTappedAdd"], "summary": "Every order."},
                {"route": "orders.detail", "parameters": ["orderID"], "intents": [], "summary": ""}
            ],
            "dependencies": [{"name": "Payments", "versions": "^1.0.0"}],
            "resources": ["images/logo.png"]
        }
        """

    @Test("A valid manifest reads, and writes back to the same value")
    func roundTrip() throws {
        let manifest = try PluginManifest(jsonBytes: Array(Self.valid.utf8))
        #expect(manifest.name == "Orders")
        #expect(manifest.version == SemanticVersion(1, 2, 0))
        #expect(manifest.sdkVersion == NavHostKitVersion(major: 1, minor: 0, patch: 0))
        #expect(manifest.routeIDs == ["orders.list", "orders.detail"])
        #expect(manifest.routes[1].parameters == ["orderID"])
        #expect(manifest.dependencies == [.init(name: "Payments", versions: try #require(VersionRange("^1.0.0")))])
        let written = try manifest.jsonBytes()
        #expect(try PluginManifest(jsonBytes: written) == manifest)
        #expect(String(decoding: written, as: UTF8.self).hasPrefix("{\n    \"name\": \"Orders\",\n"))
    }

    @Test("A dependency is hard unless it says \"optional\": true, and only an optional one writes the field")
    func optionalDependencies() throws {
        let text = Self.valid.replacingOccurrences(
            of: #"[{"name": "Payments", "versions": "^1.0.0"}]"#,
            with:
                #"[{"name": "Payments", "versions": "^1.0.0"}, {"name": "Coupons", "versions": "^2.0.0", "optional": true}]"#
        )
        let manifest = try PluginManifest(jsonBytes: Array(text.utf8))
        #expect(manifest.dependencies.map(\.isOptional) == [false, true])
        #expect(manifest.hardDependencies.map(\.name) == ["Payments"])
        #expect(manifest.optionalDependencies.map(\.name) == ["Coupons"])
        let written = String(decoding: try manifest.jsonBytes(), as: UTF8.self)
        #expect(written.components(separatedBy: "\"optional\"").count == 2, "only Coupons says optional: \(written)")
        #expect(try PluginManifest(jsonBytes: Array(written.utf8)) == manifest)
    }

    @Test(
        "A broken manifest is refused with a typed error naming the field",
        arguments: [
            (#""name": "Orders","#, #""name": "9Orders","#, "invalidField", "name"),
            (#""version": "1.2.0","#, "", "missingField", "version"),
            (#""version": "1.2.0","#, #""version": 1,"#, "invalidField", "version"),
            (#""sdkVersion": "1.0.0","#, #""sdkVersion": "one","#, "invalidField", "sdkVersion"),
            (
                #""library": "libOrdersFeature.so","#, #""library": "../libOrdersFeature.so","#, "invalidField",
                "library"
            ),
            (#""library": "libOrdersFeature.so","#, #""library": "libOrdersFeature.dll","#, "invalidField", "library"),
            (#""sha256": ""#, #""sha256": "AB"#, "invalidField", "sha256"),
            (#""summary": "Orders.","#, #""summary": "Orders.", "author": "me","#, "unknownField", "author"),
            (
                #""intents": ["onTappedAdd"]"#, #""intents": ["onTappedAdd"], "icon": "x""#, "unknownField",
                "routes[0].icon"
            ),
            (#""route": "orders.list""#, #""route": "orders""#, "invalidField", "routes[0].route"),
            (#""route": "orders.detail""#, #""route": "orders.list""#, "invalidField", "routes[1].route"),
            (#""parameters": ["orderID"]"#, #""parameters": ["order ID"]"#, "invalidField", "routes[1].parameters[0]"),
            (
                #""intents": ["onTappedAdd"]"#, #""intents": ["onTappedAdd", "onTappedAdd"]"#, "invalidField",
                "routes[0].intents[1]"
            ),
            (#""name": "Payments""#, #""name": "Orders""#, "invalidField", "dependencies[0].name"),
            (#""versions": "^1.0.0""#, #""versions": "1.x""#, "invalidField", "dependencies[0].versions"),
            (#""versions": "^1.0.0""#, "", "missingField", "dependencies[0].versions"),
            (
                #""versions": "^1.0.0""#, #""versions": "^1.0.0", "optional": "yes""#, "invalidField",
                "dependencies[0].optional"
            ),
            (#""versions": "^1.0.0""#, #""versions": "^1.0.0", "weak": true"#, "unknownField", "dependencies[0].weak"),
            (#""images/logo.png""#, #""../logo.png""#, "invalidField", "resources[0]"),
            (#""images/logo.png""#, #""/etc/passwd""#, "invalidField", "resources[0]"),
            (#""images/logo.png""#, #""manifest.json""#, "invalidField", "resources[0]"),
        ]
    )
    func brokenManifest(original: String, replacement: String, code: String, field: String) throws {
        #expect(Self.valid.contains(original), "the test edits an existing part")
        var text = Self.valid.replacingOccurrences(of: original, with: replacement)
        if replacement.isEmpty, original.hasPrefix(#""versions""#) {
            text = text.replacingOccurrences(of: #"{"name": "Payments", }"#, with: #"{"name": "Payments"}"#)
        }
        let error = try #require(throws: PluginManifestError.self) { try PluginManifest(jsonBytes: Array(text.utf8)) }
        #expect(error.code.description == code, "\(error)")
        #expect(error.field == field, "\(error)")
    }

    @Test(
        "An unknown field is named with the field it was probably meant to be, at any depth; one spelt like none alone",
        arguments: [
            (#""summary": "Orders.","#, #""sumary": "Orders.","#, "sumary", #" (did you mean "summary"?)"#),
            (#""routes": ["#, #""routs": ["#, "routs", #" (did you mean "routes"?)"#),
            (
                #""intents": ["onTappedAdd"]"#, #""intent": ["onTappedAdd"]"#, "routes[0].intent",
                #" (did you mean "intents"?)"#
            ),
            (
                #""versions": "^1.0.0""#, #""versions": "^1.0.0", "optinal": true"#, "dependencies[0].optinal",
                #" (did you mean "optional"?)"#
            ),
            (#""summary": "Orders.","#, #""summary": "Orders.", "entryPoint": "main","#, "entryPoint", ""),
            // A field the object has already is not suggested: renamed to it, the member would be there twice.
            (#""intents": ["onTappedAdd"]"#, #""intents": ["onTappedAdd"], "intent": []"#, "routes[0].intent", ""),
        ]
    )
    func unknownFieldSpeltLikeAKnownOne(original: String, replacement: String, field: String, hint: String) throws {
        #expect(Self.valid.contains(original), "the test edits an existing part")
        let text = Self.valid.replacingOccurrences(of: original, with: replacement)
        let error = try #require(throws: PluginManifestError.self) { try PluginManifest(jsonBytes: Array(text.utf8)) }
        #expect(error.code == .unknownField && error.field == field, "\(error)")
        let name = field.split(separator: ".").last.map(String.init) ?? field
        #expect(error.message.hasPrefix("the format has no field \"\(name)\"\(hint); the fields are "), "\(error)")
    }

    @Test("A manifest without routes, or that is not an object, or not JSON, is refused")
    func wholeDocument() throws {
        let routes = try #require(Self.valid.range(of: #""routes": ["#))
        let dependencies = try #require(Self.valid.range(of: #""dependencies""#))
        let noRoutes = Self.valid.replacingCharacters(
            in: routes.lowerBound..<dependencies.lowerBound,
            with: "\"routes\": [],\n    "
        )
        #expect(throws: PluginManifestError(.invalidField, field: "routes", "a plugin offers at least one route")) {
            try PluginManifest(jsonBytes: Array(noRoutes.utf8))
        }
        #expect(throws: PluginManifestError.self) { try PluginManifest(jsonBytes: Array("[1, 2]".utf8)) }
        let notJSON = try #require(throws: PluginManifestError.self) { try PluginManifest(jsonBytes: Array("{".utf8)) }
        #expect(notJSON.code == .notJSON && notJSON.field.isEmpty)
        let commaLeftOut = Array("{\n  \"name\": \"X\",\n  \"version\": \"1.0.0\"\n  \"routes\": []\n}\n".utf8)
        let placed = try #require(throws: PluginManifestError.self) { try PluginManifest(jsonBytes: commaLeftOut) }
        #expect("\(placed)".hasSuffix("(line 4, column 3)"), "where an editor shows it: \(placed)")
        // Columns count characters, not bytes: "é" and "ü" are two bytes each in UTF-8.
        let afterAccents = Array("{\n  \"name\": \"Café\", \"über\": 1 \"routes\": []\n}\n".utf8)
        let accented = try #require(throws: PluginManifestError.self) { try PluginManifest(jsonBytes: afterAccents) }
        #expect("\(accented)".hasSuffix("(line 2, column 29)"), "where an editor shows it: \(accented)")
    }
}
