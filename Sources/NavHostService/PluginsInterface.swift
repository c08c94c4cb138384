import NavHostKit
public import NavHostVarlink

/// One plugin as `io.navhost.Plugins.List` reports it.
public struct PluginReport: Sendable, Hashable, Encodable {
    /// Why a plugin was refused.
    public struct Quarantine: Sendable, Hashable, Encodable {
        public var code: String
        public var message: String

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    public enum State: String, Sendable, Hashable, Encodable {
        case loaded, quarantined
    }

    public var name: String
    public var version: String
    public var state: State
    public var path: String
    public var sdkVersion: String?
    public var routes: [String]
    public var quarantine: Quarantine?

    public init(
        name: String,
        version: String,
        state: State,
        path: String,
        sdkVersion: String?,
        routes: [String],
        quarantine: Quarantine?
    ) {
        self.name = name
        self.version = version
        self.state = state
        self.path = path
        self.sdkVersion = sdkVersion
        self.routes = routes
        self.quarantine = quarantine
    }
}

/// `io.navhost.Plugins`: what the operator sees of the plugins.
public enum PluginsInterface {
    /// The interface's name.
    public static let name = "io.navhost.Plugins"

    /// The interface's definition, as served by `GetInterfaceDescription`.
    public static let definition = InterfaceDefinitions.plugins

    /// Builds the interface; `reports` lists every plugin found, loaded or quarantined.
    public static func implementation(
        reports: @escaping @Sendable () async -> [PluginReport]
    ) -> VarlinkInterfaceImplementation {
        var plugins: VarlinkInterfaceImplementation
        do {
            plugins = try VarlinkInterfaceImplementation(description: definition)
        } catch {
            preconditionFailure("io.navhost.Plugins.varlink does not parse: \(error)")
        }
        plugins.handle("List") { _ in
            ["plugins": try JSONValueEncoder().encode(await reports())]
        }
        return plugins
    }
}
