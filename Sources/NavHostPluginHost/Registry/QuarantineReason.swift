/// Why the registry refused a plugin: the kind of failure, and what exactly went wrong.
///
/// A quarantined plugin stays on disk and in ``PluginRegistry/statuses`` for the operator to see; none of its code
/// runs (or, when it failed after loading, none of it is reachable through a route). `code` says what kind of
/// failure it was; new codes may be added, so switch over it with a `default`.
public struct QuarantineReason: Error, Sendable, Hashable {
    /// The kind of failure, in the order the registry checks.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case fileMissing
            case unsafePermissions
            case badManifest
            case duplicateName
            case checksumMismatch
            case notASharedObject
            case abiMismatch
            case dependencyMissing
            case dependencyVersionMismatch
            case dependencyCycle
            case routeConflict
            case libraryLoadFailed
            case missingEntrySymbol
            case manifestMismatch
            case initialisationFailed
            case crashed
            case stalled
            case inUse
            case storageFailed
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The manifest, or the library it names, is not in the plugin's folder (or cannot be read).
        public static let fileMissing = Code(.fileMissing)
        /// Someone other than root and the daemon's user could change the plugin's manifest or library, or a folder on
        /// the way to them (``PathSafety``): they would choose the code the daemon runs.
        public static let unsafePermissions = Code(.unsafePermissions)
        /// The manifest is not valid JSON, lacks a field, has an unknown one, or a value breaks the format's rules.
        public static let badManifest = Code(.badManifest)
        /// Another plugin of the same name is already loaded, or comes first in the folder.
        public static let duplicateName = Code(.duplicateName)
        /// The library's SHA-256 digest is not the manifest's: it changed after the build staged it.
        public static let checksumMismatch = Code(.checksumMismatch)
        /// The library is not an ELF shared object for this machine.
        public static let notASharedObject = Code(.notASharedObject)
        /// The plugin was built against a NavHostKit the daemon's does not serve: another major version, or a newer
        /// minor one (or its entry point returned an object of another copy of the SDK).
        public static let abiMismatch = Code(.abiMismatch)
        /// A feature the plugin depends on is absent or was quarantined.
        public static let dependencyMissing = Code(.dependencyMissing)
        /// A feature the plugin depends on is loaded, in a version outside the range the manifest asks for.
        public static let dependencyVersionMismatch = Code(.dependencyVersionMismatch)
        /// The plugin is part of a cycle of dependencies, so no member can load first.
        public static let dependencyCycle = Code(.dependencyCycle)
        /// A route of the plugin is already offered by a loaded feature.
        public static let routeConflict = Code(.routeConflict)
        /// `dlopen` refused the library (a missing shared library, an undefined symbol); the message is `dlerror()`'s.
        public static let libraryLoadFailed = Code(.libraryLoadFailed)
        /// The library does not export `navhost_feature_entry`.
        public static let missingEntrySymbol = Code(.missingEntrySymbol)
        /// The module the library hands over is not the one its manifest describes (name or routes differ).
        public static let manifestMismatch = Code(.manifestMismatch)
        /// The feature's `makeCoordinator(services:)` threw.
        public static let initialisationFailed = Code(.initialisationFailed)
        /// The plugin crashed the daemon on an earlier run (a trap or a bad memory access in its code); it stays
        /// quarantined until its library changes (see ``PluginFault``).
        public static let crashed = Code(.crashed)
        /// The plugin held the main thread past the stall limit on an earlier run, so the daemon restarted; it stays
        /// quarantined until its library changes.
        public static let stalled = Code(.stalled)
        /// Not a quarantine: an unload or a removal of a loaded plugin was refused because it is in use (a loaded
        /// plugin lists it as a hard dependency, or a session's configured root route is one of its routes), or a
        /// new build of it was, because it drops or cannot build the root a session starts at.
        public static let inUse = Code(.inUse)
        /// Not a quarantine: a `Load` or `Unload` was refused because what it changes could not be written to the
        /// state folder (or the file of the plugins loaded and unloaded by hand could not be read at start), so a
        /// restart would not have kept it.
        public static let storageFailed = Code(.storageFailed)

        /// The code's name, like `checksumMismatch`.
        public var name: String { base.rawValue }

        public var description: String { name }
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, with the facts an operator needs to fix it.
    public var message: String

    /// Creates a reason of kind `code`, with what went wrong.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

// MARK: - CustomStringConvertible

extension QuarantineReason: CustomStringConvertible {
    public var description: String { "\(code): \(message)" }
}
