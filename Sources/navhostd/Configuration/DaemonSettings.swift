import Logging
import NavHostCommandLine
import NavHostCore
import NavHostKit

/// What one source of configuration says — a configuration file, a drop-in, the command line — with `nil` (or
/// nothing listed) for what it leaves to the others.
///
/// Sources are layered with ``overridden(by:)``: the main file, its drop-ins in name order, then the command line.
/// ``DaemonConfiguration/init(settings:environment:)`` fills in the defaults.
struct DaemonSettings: Sendable {
    /// One session as the configuration declares it.
    struct Session: Sendable, Equatable {
        var root: RouteRequest
        /// The most screens its stack may hold, when it differs from `limits.max-stack-depth`.
        var maxStackDepth: Int?
        /// Its intent time limit, when it differs from `limits.intent-timeout`.
        var intentTimeout: TimeLimit?

        /// `base` with what this session overrides.
        func options(over base: SessionOptions) -> SessionOptions {
            var options = base
            if let maxStackDepth { options.maxStackDepth = maxStackDepth }
            if let intentTimeout { options.intentTimeLimit = intentTimeout.duration }
            return options
        }
    }

    var socket: String?
    var plugins: String?
    var stateDirectory: String?
    var logLevel: Logger.Level?
    var socketMode: UInt32?
    var watchPlugins: Bool?
    var flightRecorderOnDisk: Bool?
    /// The sessions by name, in the order they were first declared; a `nil` session is one a later source took
    /// out (`kiosk: null` in a drop-in).
    var sessions: [(name: String, session: Session?)] = []
    /// User IDs that may control, replacing what earlier sources listed.
    var controlUIDs: [UInt32]?
    /// Groups (names or IDs) whose members may control, replacing what earlier sources listed.
    var controlGroups: [String]?
    var limits = LimitSettings()

    /// These settings with everything `later` says in place of what this one does. Sessions are merged by name;
    /// lists are replaced whole.
    func overridden(by later: DaemonSettings) -> DaemonSettings {
        var merged = self
        merged.socket = later.socket ?? socket
        merged.plugins = later.plugins ?? plugins
        merged.stateDirectory = later.stateDirectory ?? stateDirectory
        merged.logLevel = later.logLevel ?? logLevel
        merged.socketMode = later.socketMode ?? socketMode
        merged.watchPlugins = later.watchPlugins ?? watchPlugins
        merged.flightRecorderOnDisk = later.flightRecorderOnDisk ?? flightRecorderOnDisk
        for (name, session) in later.sessions {
            if let index = merged.sessions.firstIndex(where: { $0.name == name }) {
                merged.sessions[index].session = session
            } else {
                merged.sessions.append((name, session))
            }
        }
        merged.controlUIDs = later.controlUIDs ?? controlUIDs
        merged.controlGroups = later.controlGroups ?? controlGroups
        merged.limits = limits.overridden(by: later.limits)
        return merged
    }

    /// The sessions that are declared, in order, without those taken out.
    var declaredSessions: [SessionConfiguration] {
        sessions.compactMap { name, session in
            session.map { SessionConfiguration(name: name, root: $0.root) }
        }
    }
}
