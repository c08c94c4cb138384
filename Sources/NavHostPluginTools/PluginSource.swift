import NavHostCore
import NavHostKit
public import NavHostPluginHost
import NavHostStorage

/// A plugin's hand-written `plugin.json`: the part of its manifest that the build cannot find out by itself.
///
/// ```json
/// {
///     "name": "Products",
///     "version": "1.0.0",
///     "summary": "The product catalog.",
///     "dependencies": [{"name": "UserProfile", "versions": ">=1.0.0 <2.0.0"}],
///     "resources": ["products.json"]
/// }
/// ```
///
/// `dependencies` and `resources` may be left out. Each resource is a path under the plugin's `Resources/` folder.
/// Reading is strict, as for `manifest.json`: unknown fields are refused, one only `manifest.json` has (`routes`, which
/// `stage` writes) as belonging there.
public struct PluginSource: Sendable, Hashable {
    /// The file's name in the plugin's folder.
    public static let fileName = "plugin.json"
    /// The folder, beside `plugin.json`, that holds the files `resources` lists.
    public static let resourcesFolder = "Resources"

    // MARK: Public Properties

    /// The feature's name, like `Products`: `lib<name>Feature.so` is its library.
    public var name: String
    /// The plugin's version.
    public var version: SemanticVersion
    /// One line for people: what the feature does.
    public var summary: String
    /// The features to load first, with the versions accepted.
    public var dependencies: [PluginManifest.Dependency]
    /// Paths under the plugin's `Resources/` folder, staged beside its library.
    public var resources: [String]

    /// The shared library SwiftPM builds for the plugin: `lib<Name>Feature.so`.
    public var libraryName: String { "lib\(name)Feature.so" }

    // MARK: Initialization

    /// Creates the contents of a `plugin.json`.
    public init(
        name: String,
        version: SemanticVersion,
        summary: String,
        dependencies: [PluginManifest.Dependency] = [],
        resources: [String] = []
    ) {
        self.name = name
        self.version = version
        self.summary = summary
        self.dependencies = dependencies
        self.resources = resources
    }

    /// Reads and validates the bytes of a `plugin.json`.
    public init(jsonBytes bytes: some Collection<UInt8>) throws(PluginManifestError) {
        self = try ManifestDecoding.decode(PluginSource.self, from: bytes)
        guard ManifestRules.isFeatureName(name) else {
            throw PluginManifestError(.invalidField, field: "name", "\"\(name)\" is not a feature name")
        }
        try PluginManifest.validateDependencies(dependencies, of: name)
        try PluginManifest.validateResources(resources, reserved: [PluginManifest.fileName, libraryName])
    }

    /// Reads `plugin.json` from the plugin folder `folder`.
    public init(folder: String) throws(PluginToolError) {
        let path = "\(folder)/\(Self.fileName)"
        let bytes: [UInt8]
        do {
            bytes = try FileIO.readFile(path, limit: 1 << 20)
        } catch {
            throw PluginToolError(.badSource, "cannot read \(path): \(error.message)")
        }
        do {
            try self.init(jsonBytes: bytes)
        } catch {
            throw PluginToolError(.badSource, "\(path): \(error)")
        }
    }

    // MARK: Public Functions

    /// The bytes of the file, indented by four spaces.
    public func jsonBytes() throws -> [UInt8] {
        Array(try JSONValueEncoder().encode(self).prettyPrinted().utf8)
    }
}

// MARK: - Codable

extension PluginSource: Codable {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case name, version, summary, dependencies, resources
    }

    public init(from decoder: any Decoder) throws {
        try Self.refuseManifestFields(of: decoder)
        try decoder.refuseUnknownFields(allowed: Set(CodingKeys.allCases.map(\.rawValue)))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        version = try container.decode(SemanticVersion.self, forKey: .version)
        summary = try container.decode(String.self, forKey: .summary)
        dependencies = try container.decodeIfPresent([PluginManifest.Dependency].self, forKey: .dependencies) ?? []
        resources = try container.decodeIfPresent([String].self, forKey: .resources) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(version, forKey: .version)
        try container.encode(summary, forKey: .summary)
        try container.encode(dependencies, forKey: .dependencies)
        try container.encode(resources, forKey: .resources)
    }

    /// Refuses a field only `manifest.json` has (`routes`, `library`, `sha256`, `sdkVersion`), saying where it
    /// belongs: `stage` writes those from the built library, so one in `plugin.json` is not a misspelling but a
    /// field in the wrong file.
    private static func refuseManifestFields(of decoder: any Decoder) throws {
        let fields = CodingKeys.allCases.map(\.rawValue)
        let members = try decoder.container(keyedBy: AnyCodingKey.self).allKeys.map(\.stringValue)
        for member in members where PluginManifest.fieldNames.contains(member) && !fields.contains(member) {
            throw PluginManifestError(
                .unknownField,
                field: member,
                "\"\(member)\" belongs in \(PluginManifest.fileName), not \(fileName): navhost-plugin-tool stage "
                    + "writes it from the built library; the fields are \(fields.sorted().joined(separator: ", "))"
            )
        }
    }
}
