public import NavHostCore
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
        case loaded, quarantined, removed
    }

    /// Why a loaded plugin whose folder went away keeps serving.
    public struct RemovalRefused: Sendable, Hashable, Encodable {
        public var neededBy: [String]
        public var rootOf: [String]
        public var message: String

        public init(neededBy: [String], rootOf: [String], message: String) {
            self.neededBy = neededBy
            self.rootOf = rootOf
            self.message = message
        }
    }

    public var name: String
    public var version: String
    public var state: State
    public var path: String
    public var sdkVersion: String?
    public var routes: [String]
    public var quarantine: Quarantine?
    /// Why the last reload of this loaded plugin was refused, if it was.
    public var lastReloadFailure: Quarantine?
    /// Why this loaded plugin keeps serving though its folder is gone, if it does.
    public var removalRefused: RemovalRefused?

    public init(
        name: String,
        version: String,
        state: State,
        path: String,
        sdkVersion: String?,
        routes: [String],
        quarantine: Quarantine?,
        lastReloadFailure: Quarantine? = nil,
        removalRefused: RemovalRefused? = nil
    ) {
        self.name = name
        self.version = version
        self.state = state
        self.path = path
        self.sdkVersion = sdkVersion
        self.routes = routes
        self.quarantine = quarantine
        self.lastReloadFailure = lastReloadFailure
        self.removalRefused = removalRefused
    }
}

/// One change to the plugins, as `io.navhost.Plugins.Watch` reports it (its `PluginEvent` type).
public struct PluginEventReport: Sendable, Hashable, Encodable {
    public var kind: String
    public var name: String
    public var version: String?
    public var previousVersion: String?
    public var path: String?
    public var reason: PluginReport.Quarantine?

    /// The wire form of `event`.
    public init(_ event: PluginEvent) {
        kind = event.kind.rawValue
        name = event.name
        version = event.version.map { "\($0)" }
        previousVersion = event.previousVersion.map { "\($0)" }
        path = event.path
        reason = event.reason.map { PluginReport.Quarantine(code: $0.code.name, message: $0.message) }
    }
}

extension PluginStatus {
    /// The plugin as `io.navhost.Plugins.List` reports it.
    public var report: PluginReport {
        PluginReport(
            name: name,
            version: version.map { "\($0)" } ?? "",
            state: reportedState,
            path: libraryPath ?? directory,
            sdkVersion: manifest.map { "\($0.sdkVersion)" },
            routes: routes,
            quarantine: quarantineReason.map { PluginReport.Quarantine(code: $0.code.name, message: $0.message) },
            lastReloadFailure: lastReloadFailure.map {
                PluginReport.Quarantine(code: $0.code.name, message: $0.message)
            },
            removalRefused: removalRefused.map {
                PluginReport.RemovalRefused(neededBy: $0.neededBy, rootOf: $0.rootOf, message: $0.description)
            }
        )
    }

    private var reportedState: PluginReport.State {
        switch state {
        case .loaded: .loaded
        case .removed: .removed
        case .found, .quarantined: .quarantined
        }
    }
}

/// `io.navhost.Plugins`: what the operator sees of the plugins, and how a control client changes them.
public enum PluginsInterface {
    /// The interface's name.
    public static let name = "io.navhost.Plugins"

    /// The interface's definition, as served by `GetInterfaceDescription`.
    public static let definition = InterfaceDefinitions.plugins

    /// Builds the interface; `reports` lists every plugin found, loaded or quarantined. With `control`, `Load`,
    /// `Reload` and `Unload` act through it, for the peers `access` lets control; without, they answer
    /// `PluginRefused`.
    public static func implementation(
        reports: @escaping @Sendable () async -> [PluginReport],
        control: PluginControl? = nil,
        access: AccessControl = AccessControl(AccessPolicy(controlUIDs: [], controlGIDs: []))
    ) -> VarlinkInterfaceImplementation {
        let handlers = PluginsHandlers(control: control)
        var plugins: VarlinkInterfaceImplementation
        do {
            plugins = try VarlinkInterfaceImplementation(description: definition)
        } catch {
            preconditionFailure("io.navhost.Plugins.varlink does not parse: \(error)")
        }
        plugins.handle("List") { _ in
            ["plugins": try JSONValueEncoder().encode(await reports())]
        }
        plugins.handleStreaming("Watch") { _, replies in
            guard replies.isStreaming, let control else {
                // Without "more" (or without a control to follow), Watch answers once with the list.
                return ["plugins": try JSONValueEncoder().encode(await reports())]
            }
            return try await handlers.watch(control, replies: replies)
        }
        plugins.handle("Load", parameters: PathParameters.self) { input, request in
            try access.requireControl(request)
            return try await handlers.load(input.path)
        }
        plugins.handle("Reload", parameters: NameParameters.self) { input, request in
            try access.requireControl(request)
            return try await handlers.reload(input.name)
        }
        plugins.handle("Unload", parameters: NameParameters.self) { input, request in
            try access.requireControl(request)
            return try await handlers.unload(input.name)
        }
        return plugins
    }
}

// MARK: - Handlers

private struct PathParameters: Decodable, Sendable {
    var path: String
}

private struct NameParameters: Decodable, Sendable {
    var name: String
}

/// What `Load`, `Reload` and `Unload` do, on the main actor.
@MainActor
private final class PluginsHandlers: Sendable {
    private let control: PluginControl?

    nonisolated init(control: PluginControl?) {
        self.control = control
    }

    /// Follows the plugins: the watcher is made on the main actor, its updates are sent from the connection's.
    nonisolated func watch(_ control: PluginControl, replies: VarlinkReplyWriter) async throws -> JSONObject {
        let watcher = await control.watch()
        defer { watcher.cancel() }
        do {
            while let update = try await watcher.next() {
                switch update {
                case .snapshot(let statuses, let coalesced):
                    var reply: JSONObject = ["plugins": try JSONValueEncoder().encode(statuses.map(\.report))]
                    if coalesced { reply["coalesced"] = true }
                    try await replies.send(reply)
                case .event(let event):
                    try await replies.send(["event": try JSONValueEncoder().encode(PluginEventReport(event))])
                }
            }
        } catch PluginWatcher.Ending.closed {
            return [:]
        } catch PluginWatcher.Ending.tooSlow {
            throw VarlinkError(name: "\(PluginsInterface.name).WatcherTooSlow")
        }
        return [:]
    }

    // Each answers once the sessions it changed (screens rebuilt or removed) are durable, like a navigation call.

    func load(_ path: String) async throws -> JSONObject {
        let status = try act { control throws(PluginRegistry.ChangeError) in try control.load(pluginAt: path) }
        try await control?.sessions.commitAll()
        return ["plugin": Self.encode(status)]
    }

    func reload(_ name: String) async throws -> JSONObject {
        let replacement = try act { control throws(PluginRegistry.ChangeError) in try control.reload(name) }
        try await control?.sessions.commitAll()
        return ["plugin": Self.encode(replacement.status)]
    }

    func unload(_ name: String) async throws -> JSONObject {
        try act { control throws(PluginRegistry.ChangeError) in try control.unload(name) }
        try await control?.sessions.commitAll()
        return [:]
    }

    private func act<Result>(
        _ body: (PluginControl) throws(PluginRegistry.ChangeError) -> Result
    ) throws(VarlinkError) -> Result {
        guard let control else {
            throw Self.refused(code: "unsupported", message: "this daemon does not change its plugins at run time")
        }
        do {
            return try body(control)
        } catch {
            switch error {
            case .notLoaded(let name):
                throw VarlinkError(name: "\(PluginsInterface.name).PluginNotFound", parameters: ["name": .string(name)])
            case .refused(let reason):
                throw Self.refused(code: reason.code.name, message: reason.message)
            }
        }
    }

    private static func refused(code: String, message: String) -> VarlinkError {
        VarlinkError(
            name: "\(PluginsInterface.name).PluginRefused",
            parameters: ["code": .string(code), "message": .string(message)]
        )
    }

    private static func encode(_ status: PluginStatus) -> JSONValue {
        (try? JSONValueEncoder().encode(status.report)) ?? .null
    }
}
