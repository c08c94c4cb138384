/// Why a build-time plugin operation (manifest, staging, scaffolding) failed.
///
/// `code` says what kind of failure it was; new codes may be added, so switch over it with a `default`.
public struct PluginToolError: Error, Sendable, Hashable {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case badSource
            case libraryNotBuilt
            case libraryUnusable
            case moduleMismatch
            case invalidName
            case alreadyExists
            case fileSystem
            case sdkNotInstalled
            case notACheckout
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The plugin's `plugin.json` is missing or invalid, or a resource it lists is missing.
        public static let badSource = Code(.badSource)
        /// The build folder holds no `lib<Name>Feature.so`: build first.
        public static let libraryNotBuilt = Code(.libraryNotBuilt)
        /// The library could not be loaded, or has no entry point.
        public static let libraryUnusable = Code(.libraryUnusable)
        /// The library's module is not the feature `plugin.json` names.
        public static let moduleMismatch = Code(.moduleMismatch)
        /// A feature name that cannot name Swift targets and files.
        public static let invalidName = Code(.invalidName)
        /// The scaffold would overwrite an existing plugin.
        public static let alreadyExists = Code(.alreadyExists)
        /// Reading, writing, copying or renaming a file failed.
        public static let fileSystem = Code(.fileSystem)
        /// The tool does not run from an installed SDK, which an out-of-tree package needs.
        public static let sdkNotInstalled = Code(.sdkNotInstalled)
        /// A plugin scaffolded into a package folder that is not a NavHost checkout (no `Package.swift` and
        /// `Plugins/`): a package of one's own is made with `--out-of-tree`.
        public static let notACheckout = Code(.notACheckout)

        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// What failed and how to fix it, for a person.
    public var message: String

    /// Creates an error of kind `code`, with what failed and how to fix it.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

// MARK: - CustomStringConvertible

extension PluginToolError: CustomStringConvertible {
    public var description: String { "\(code): \(message)" }
}
