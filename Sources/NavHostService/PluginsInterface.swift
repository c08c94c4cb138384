import Logging
import NavHostCore
import NavHostKit
public import NavHostPluginHost
public import NavHostVarlink
public import NavHostWire

/// `io.navhost.Plugins`: what the operator sees of the plugins, and how a control client changes them.
public enum PluginsInterface {
    /// The interface's name.
    public static let name = NavHostInterfaceName.plugins

    /// The interface's definition, as served by `GetInterfaceDescription`.
    public static let definition = InterfaceDefinitions.plugins

    /// The folder the daemon loads plugins from, as `List` reports it.
    public struct PluginsFolder: Sendable {
        /// Where the daemon loads plugins from at start and at SIGHUP.
        public var path: String
        /// Whether it follows the folder as it changes (`watch-plugins`).
        public var isWatched: Bool

        /// Creates the report of the plugins folder `path`, followed as it changes or not.
        public init(path: String, isWatched: Bool) {
            self.path = path
            self.isWatched = isWatched
        }
    }

    /// Builds the interface; `reports` lists every plugin found, loaded or quarantined, and `pluginsFolder` says where
    /// they come from (`nil`: `List` does not say). With `control`, `Load`, `Reload` and `Unload` act through it, for
    /// the peers `access` lets control; without, they answer `PluginRefused`.
    public static func implementation(
        reports: @escaping @Sendable () async -> [PluginInfo],
        pluginsFolder: @escaping @Sendable () async -> PluginsFolder? = { nil },
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
            let folder = await pluginsFolder()
            let reply = PluginListReply(
                plugins: await reports(),
                pluginsFolder: folder?.path,
                watchesPluginsFolder: folder?.isWatched
            )
            return try JSONValueEncoder().encode(reply).objectValue ?? [:]
        }
        plugins.handleStreaming("Watch") { _, replies in
            guard replies.isStreaming, let control else {
                // Without "more" (or without a control to follow), Watch answers once with the list.
                return try JSONValueEncoder().encode(PluginListReply(plugins: await reports())).objectValue ?? [:]
            }
            return try await handlers.watch(control, replies: replies)
        }
        plugins.handle("Load") { request in
            try access.requireControl(request)
            let path = try PathParameters(request.parameters).path
            logChange("load a plugin", asked: request, ["navhost.plugin.folder": "\(path)"])
            return try await handlers.load(path)
        }
        plugins.handle("Reload") { request in
            try access.requireControl(request)
            let name = try NameParameters(request.parameters).name
            logChange("reload a plugin", asked: request, ["navhost.plugin": "\(name)"])
            return try await handlers.reload(name)
        }
        plugins.handle("Unload") { request in
            try access.requireControl(request)
            let name = try NameParameters(request.parameters).name
            logChange("unload a plugin", asked: request, ["navhost.plugin": "\(name)"])
            return try await handlers.unload(name)
        }
        return plugins
    }
}

// MARK: - Private Functions

extension PluginsInterface {
    /// Logs, at `notice`, that a client asked for a change of the plugins, before it is made: a load runs code of the
    /// client's choosing as the daemon's user, and the operator must be able to tell who chose it (the request's
    /// logger names the peer's process and user, `varlink.peer.pid` and `varlink.peer.uid`). Only control clients get
    /// here, so no budget holds these lines back.
    fileprivate static func logChange(_ change: String, asked request: VarlinkRequest, _ subject: Logger.Metadata) {
        request.logger.notice("A control client asked to \(change)", metadata: subject)
    }
}

// MARK: - Handlers

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
                    let reply = PluginWatchReply.plugins(await control.reports(of: statuses), coalesced: coalesced)
                    try await replies.send(try reply.jsonObject())
                case .event(let event):
                    try await replies.send(try PluginWatchReply.event(event).jsonObject())
                }
            }
        } catch PluginWatcher.Ending.stopping {
            throw SessionsShutDown()
        } catch PluginWatcher.Ending.closed {
            return [:]
        }
        // Cancelled (the server stopping, or the client gone): the server ends it with ServiceShuttingDown.
        try Task.checkCancellation()
        return [:]
    }

    // Each answers once what it changed is durable: the plugins loaded and unloaded by hand (``PluginControl``), and
    // the sessions whose screens it rebuilt or removed, like a navigation call (``PluginControl/commitSessions``).

    func load(_ path: String) async throws -> JSONObject {
        let status = try await act { control throws(PluginRegistry.ChangeError) in
            try await control.load(pluginAt: path)
        }
        await control?.commitSessions(after: "\(status.name) was loaded")
        return try Self.reply(status)
    }

    func reload(_ name: String) async throws -> JSONObject {
        let replacement = try await act { control throws(PluginRegistry.ChangeError) in try control.reload(name) }
        await control?.commitSessions(after: "\(name) was reloaded")
        return try Self.reply(replacement.status)
    }

    func unload(_ name: String) async throws -> JSONObject {
        try await act { control throws(PluginRegistry.ChangeError) in try await control.unloadCommittingSessions(name) }
        return [:]
    }

    private func act<Result>(
        _ body: (PluginControl) async throws(PluginRegistry.ChangeError) -> Result
    ) async throws(VarlinkError) -> Result {
        guard let control else {
            throw Self.refused(code: "unsupported", message: "this daemon does not change its plugins at run time")
        }
        do {
            return try await body(control)
        } catch {
            switch error {
            case .notLoaded(let name):
                var parameters: JSONObject = ["name": .string(name)]
                if let folder = control.folderUnloadedByHand(named: name) {
                    parameters["unloadedFolder"] = .string(folder)
                }
                throw VarlinkError(name: PluginsErrorName.pluginNotFound.qualifiedName, parameters: parameters)
            case .refused(let reason):
                throw Self.refused(code: reason.code.name, message: reason.message)
            }
        }
    }

    private static func refused(code: String, message: String) -> VarlinkError {
        VarlinkError(
            name: PluginsErrorName.pluginRefused.qualifiedName,
            parameters: ["code": .string(code), "message": .string(message)]
        )
    }

    private static func reply(_ status: PluginStatus) throws -> JSONObject {
        try JSONValueEncoder().encode(PluginReply(plugin: status.info)).objectValue ?? [:]
    }
}
