public import NavHostKit

/// What the daemon knows about a plugin without loading its code: the `manifest.json` beside its library.
///
/// The build writes it (`navhost-plugin-tool stage`): the name, version, summary, dependencies and resources come
/// from the plugin's hand-written `plugin.json`; the routes come from the built library's `screens`; `sdkVersion` is
/// the NavHostKit the library was compiled against (it reports it itself), and `sha256` the library's digest.
///
/// ```json
/// {
///     "name": "Products",
///     "version": "1.0.0",
///     "summary": "The product catalog.",
///     "sdkVersion": "2.1.0",
///     "library": "libProductsFeature.so",
///     "sha256": "5f0c…",
///     "routes": [
///         {"route": "products.detail", "parameters": ["productID"], "intents": ["onTappedRetry"], "summary": "…"}
///     ],
///     "dependencies": [{"name": "UserProfile", "versions": ">=1.0.0 <2.0.0", "optional": true}],
///     "resources": ["products.json"]
/// }
/// ```
///
/// docs/manifest.md describes every field of `plugin.json` and `manifest.json`, and each validation error.
///
/// Reading is strict: every field is required, unknown fields are refused, and ``validate()`` checks each value.
public struct PluginManifest: Sendable, Hashable {
    /// One route the plugin offers, as its `ScreenDescriptor` describes it.
    public struct Route: Sendable, Hashable, Codable {
        /// The route's wire ID, like `products.detail`.
        public var route: String
        /// The names of its parameters.
        public var parameters: [String]
        /// The names of the intents its screen accepts.
        public var intents: [String]
        /// What the screen shows, for people.
        public var summary: String

        /// Describes a route by its parts.
        public init(route: String, parameters: [String] = [], intents: [String] = [], summary: String = "") {
            self.route = route
            self.parameters = parameters
            self.intents = intents
            self.summary = summary
        }

        /// The route a feature module's screen describes.
        public init(_ screen: ScreenDescriptor) {
            self.init(
                route: screen.route,
                parameters: screen.parameters,
                intents: screen.intents,
                summary: screen.summary
            )
        }
    }

    /// Another feature this one needs, or can use when it is there, in a range of versions.
    public struct Dependency: Sendable, Hashable, Codable {
        /// The other feature's name.
        public var name: String
        /// The versions of it that this plugin works with, like `>=1.0.0 <2.0.0`.
        public var versions: VersionRange
        /// Whether the plugin loads and keeps serving without it. A hard dependency (`false`, the default) must be
        /// loaded first and cannot be removed while this plugin is; an optional one is used when it is loaded in a
        /// version of ``versions``, and the feature learns that through `HostServices.optionalFeatures`.
        public var isOptional: Bool

        /// Asks for the feature `name` in a version of `versions`; `isOptional` when the plugin can do without it.
        public init(name: String, versions: VersionRange, isOptional: Bool = false) {
            self.name = name
            self.versions = versions
            self.isOptional = isOptional
        }
    }

    /// The manifest's file name inside a plugin's folder.
    public static let fileName = "manifest.json"

    /// The largest manifest the daemon reads: 1 MiB, far more than the files, routes and dependencies it lists take.
    public static let largestFile = 1 << 20

    // MARK: Public Properties

    /// The feature's name, which its module's `name` must match, like `Products`.
    public var name: String
    /// The plugin's version.
    public var version: SemanticVersion
    /// One line for people: what the feature does.
    public var summary: String
    /// The NavHostKit version the plugin was built against; the daemon's must be compatible with it.
    public var sdkVersion: NavHostKitVersion
    /// The shared library's file name in the plugin's folder, like `libProductsFeature.so`.
    public var library: String
    /// The library's SHA-256 digest, 64 lower-case hex digits.
    public var sha256: String
    /// The routes the plugin offers; its module's screens must list the same.
    public var routes: [Route]
    /// The features to load first (hard dependencies) and those used when they are there (optional ones).
    public var dependencies: [Dependency]

    /// The dependencies the plugin cannot load or serve without.
    public var hardDependencies: [Dependency] { dependencies.filter { !$0.isOptional } }

    /// The dependencies the plugin can do without.
    public var optionalDependencies: [Dependency] { dependencies.filter(\.isOptional) }
    /// Files the plugin ships in its folder (relative paths), which it finds in `HostServices.resourceDirectory`.
    public var resources: [String]

    // MARK: Initialization

    /// Creates a manifest from its fields; ``validate()`` checks them.
    public init(
        name: String,
        version: SemanticVersion,
        summary: String,
        sdkVersion: NavHostKitVersion,
        library: String,
        sha256: String,
        routes: [Route],
        dependencies: [Dependency] = [],
        resources: [String] = []
    ) {
        self.name = name
        self.version = version
        self.summary = summary
        self.sdkVersion = sdkVersion
        self.library = library
        self.sha256 = sha256
        self.routes = routes
        self.dependencies = dependencies
        self.resources = resources
    }

    /// Reads a manifest from the bytes of `manifest.json`, then validates it.
    ///
    /// - Throws: ``PluginManifestError`` naming the field at fault.
    public init(jsonBytes bytes: some Collection<UInt8>) throws(PluginManifestError) {
        self = try ManifestDecoding.decode(PluginManifest.self, from: bytes)
        try validate()
    }

    // MARK: Public Functions

    /// The manifest as `manifest.json` holds it: JSON indented by four spaces, ending with a newline.
    public func jsonBytes() throws -> [UInt8] {
        Array(try JSONValueEncoder().encode(self).prettyPrinted().utf8)
    }

    /// The names of the routes, in order.
    public var routeIDs: [String] { routes.map(\.route) }
}

// MARK: - Codable

extension PluginManifest: Codable {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case name, version, summary, sdkVersion, library, sha256, routes, dependencies, resources
    }

    /// The names of `manifest.json`'s top-level fields, for `plugin.json`'s reader to tell those `stage` writes from
    /// a misspelt field.
    package static let fieldNames = Set(CodingKeys.allCases.map(\.rawValue))

    public init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(allowed: Self.fieldNames)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        version = try container.decode(SemanticVersion.self, forKey: .version)
        summary = try container.decode(String.self, forKey: .summary)
        sdkVersion = try container.decode(NavHostKitVersion.self, forKey: .sdkVersion)
        library = try container.decode(String.self, forKey: .library)
        sha256 = try container.decode(String.self, forKey: .sha256)
        routes = try container.decode([Route].self, forKey: .routes)
        dependencies = try container.decode([Dependency].self, forKey: .dependencies)
        resources = try container.decode([String].self, forKey: .resources)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(version, forKey: .version)
        try container.encode(summary, forKey: .summary)
        try container.encode(sdkVersion, forKey: .sdkVersion)
        try container.encode(library, forKey: .library)
        try container.encode(sha256, forKey: .sha256)
        try container.encode(routes, forKey: .routes)
        try container.encode(dependencies, forKey: .dependencies)
        try container.encode(resources, forKey: .resources)
    }
}

extension PluginManifest.Route {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case route, parameters, intents, summary
    }

    public init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(allowed: Set(CodingKeys.allCases.map(\.rawValue)))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        route = try container.decode(String.self, forKey: .route)
        parameters = try container.decode([String].self, forKey: .parameters)
        intents = try container.decode([String].self, forKey: .intents)
        summary = try container.decode(String.self, forKey: .summary)
    }
}

extension PluginManifest.Dependency {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case name, versions, optional
    }

    /// Reads `{"name": …, "versions": …}`, with `"optional": true` for an optional dependency (`false` when absent).
    public init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(allowed: Set(CodingKeys.allCases.map(\.rawValue)))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        versions = try container.decode(VersionRange.self, forKey: .versions)
        isOptional = try container.decodeIfPresent(Bool.self, forKey: .optional) ?? false
    }

    /// Writes `"optional": true` only for an optional dependency, so a manifest without any reads as before.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(versions, forKey: .versions)
        if isOptional { try container.encode(true, forKey: .optional) }
    }
}
