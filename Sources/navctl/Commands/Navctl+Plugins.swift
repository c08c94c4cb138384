import ArgumentParser
import Glibc
import NavHostClient
import NavHostStorage
import NavHostWire
import Synchronization

// The plugins group: list (the default), load, reload, unload, watch, wait.

// MARK: - plugins

extension Navctl {
    struct Plugins: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List, load, reload, unload and watch the daemon's plugins, or wait for one it is given.",
            discussion: """
                Without a subcommand, lists the plugins (plugins list). load, reload and unload change the running \
                daemon and need a control user (root, the daemon's own user, or one it was given with \
                --control-uid or --control-group); anyone who can reach the socket may list and watch.

                A refusal exits with 2 (docs/navctl.md): PluginNotFound when no loaded plugin has the name, \
                PluginRefused {code, message} when the daemon refused the plugin or its new build (a loaded \
                plugin then keeps serving), org.varlink.service.PermissionDenied when this user may not control.

                Examples:
                  navctl plugins
                  navctl plugins load /usr/lib/navhost/plugins/Orders
                  navctl plugins reload Products
                  navctl plugins unload Orders
                  navctl plugins watch
                  navctl plugins wait /usr/lib/navhost/plugins/Orders
                """,
            subcommands: [List.self, Load.self, Reload.self, Unload.self, Watch.self, Wait.self],
            defaultSubcommand: List.self
        )
    }
}

// MARK: - plugins list

extension Navctl.Plugins {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the plugins the daemon found, loaded, quarantined or removed, and why any was refused.",
            discussion: """
                The NOTE column says why a plugin was quarantined, why a loaded one whose folder is gone keeps \
                serving (removal refused: needed by Home), why its last new build was refused, that a removed \
                one was unloaded by hand (it stays out until plugins load of its folder), that one was loaded \
                by hand from outside the plugins folder, and, when two rows share a name, each one's folder. \
                --json prints the io.navhost.Plugins.List reply: \
                {"plugins": [{"name": …, "version": …, "state": …, "path": …, "folder": …, "routes": […], \
                "quarantine": {"code": …, "message": …}, "lastReloadFailure": {…}, "removalRefused": {…}, \
                "unloadedByHand": true, "loadedByHand": true, "sha256": …, "lastRefusedBuild": …, "triedAt": …, \
                "lostAtReload": […], "servingSince": …, "replacedVersion": …}, …]}.

                Examples:
                  navctl plugins
                  navctl plugins list --json | jq '.plugins[] | select(.state == "quarantined")'
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            try Self.refuseUnusedRootOptions()
        }

        func run() async throws {
            try await connection.withClient { client throws(NavHostClientError) in
                let list = try await client.pluginList()
                if output.json {
                    try JSONOutput.print(list)
                } else {
                    PluginView.lines(list.plugins).forEach(Console.print)
                }
            }
        }
    }
}

// MARK: - plugins load

extension Navctl.Plugins {
    struct Load: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Load the plugin in a folder: its manifest, library and resources.",
            discussion: """
                A relative path is made absolute against the current directory before it is sent (. and .. are \
                resolved as written; symbolic links are kept). The plugin's dependencies must be loaded. It stays \
                loaded across restarts: a folder outside the plugins folder is loaded at every start until plugins \
                unload, and one of the plugins folder unloaded before is no longer. Prints \
                "loaded NAME VERSION from LIBRARY". --json prints the Load reply: {"plugin":{…}}.

                Refused (exit 2, with the reason) are, among others: a folder that someone other than root and the \
                daemon's user could change, the folder or one on the way to it (unsafePermissions: chmod go-w, or \
                copy the staged folder into the daemon's plugins folder), and a plugin whose name another folder's \
                plugin serves (duplicateName: navctl plugins unload NAME first, or reload it).

                Examples:
                  navctl plugins load /usr/lib/navhost/plugins/Orders
                  navctl plugins load ./Orders --json
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var folder: PluginFolderArgument

        func validate() throws {
            try Self.refuseUnusedRootOptions()
        }

        func run() async throws {
            let path = try folder.absolute()
            try await connection.withClient { client throws(NavHostClientError) in
                let plugin = try await client.loadPlugin(at: path)
                if output.json { return try JSONOutput.print(["plugin": plugin]) }
                Console.print(
                    PluginView.describe(
                        PluginEvent(kind: .loaded, name: plugin.name, version: plugin.version, path: plugin.path)
                    )
                )
            }
        }
    }
}

// MARK: - The folder of a staged plugin

/// The folder of a staged plugin, as `plugins load` and `plugins wait` take it.
struct PluginFolderArgument: ParsableArguments {
    @Argument(
        help: ArgumentHelp("The plugin's folder, where its manifest.json is (or was).", valueName: "path"),
        completion: .directory
    )
    var path: String

    func validate() throws {
        guard !path.isEmpty else { throw ValidationError("the path is empty") }
    }

    /// ``path`` made absolute against the current directory, with `.`, `..` and repeated slashes resolved as
    /// written: the daemon has a working directory of its own.
    ///
    /// - Throws: `ExitCode.failure`, reported, when a relative path meets a current directory that cannot be read.
    func absolute() throws(ExitCode) -> String {
        guard let absolute = AbsolutePath.resolving(path) else {
            let reason = String(cString: strerror(errno))
            Console.printError("Error: cannot make \(path) absolute: the current directory is unknown: \(reason)")
            throw ExitCode.failure
        }
        return absolute
    }
}

// MARK: - plugins reload

extension Navctl.Plugins {
    struct Reload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace a loaded plugin with the build now in its folder.",
            discussion: """
                The new build is loaded from a fresh private copy, and every session showing the plugin's screens \
                rebuilds them in place. A refused build (PluginRefused, exit code 2) leaves the old version \
                serving; plugins list --json then shows it as lastReloadFailure. Prints "reloaded NAME OLD → NEW \
                from LIBRARY; the build in FOLDER", or "; the library in FOLDER is the one that served before" when \
                it did not change (a build that failed, or another folder than the one rebuilt: the same code runs), \
                or "; the build in FOLDER, with the library that served before (its manifest is new)" when only the \
                version did. \
                A session that lost screens to the new build (started fresh: their saved state does not decode; \
                removed: it cannot show the first of them) gets a warning on standard error naming them and the file that \
                keeps its record from before. --json prints the Reload reply: {"plugin":{…}}.

                Examples:
                  navctl plugins reload Products
                  navctl plugins reload Products --json | jq -r '.plugin.version'
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        @Argument(
            help: ArgumentHelp("The loaded plugin's name, like Products.", valueName: "name"),
            completion: NameCompletion.loadedPlugins
        )
        var name: String

        func validate() throws {
            try Self.refuseUnusedRootOptions()
        }

        func run() async throws {
            try await connection.withClient { client throws(NavHostClientError) in
                if output.json { return try JSONOutput.print(["plugin": try await client.reloadPlugin(named: name)]) }
                // Only for the line printed: the version the reload replaces.
                let previous = try? await client.plugins().first { $0.name == name && $0.state == .loaded }
                let plugin = try await client.reloadPlugin(named: name)
                let event = PluginEvent(
                    kind: .reloaded,
                    name: plugin.name,
                    version: plugin.version,
                    previousVersion: previous?.version,
                    path: plugin.path
                )
                var line = PluginView.describe(event)
                if let folder = plugin.folder {
                    line += Self.origin(of: plugin, in: folder, replacing: previous)
                }
                Console.print(line)
                warnOfLosses(plugin.lostAtReload)
            }
        }

        /// Where the reloaded build came from, as the end of the printed line. A reload of the library that served
        /// before runs the same code again: after a build that failed, or of another folder than the one rebuilt,
        /// nothing new serves, and the line says so; with a new version, only the manifest (or resources) changed.
        static func origin(of plugin: PluginInfo, in folder: String, replacing previous: PluginInfo?) -> String {
            guard let previous, previous.sha256 != nil, previous.sha256 == plugin.sha256 else {
                return "; the build in \(folder)"
            }
            guard previous.version == plugin.version else {
                return "; the build in \(folder), with the library that served before (its manifest is new)"
            }
            return "; the library in \(folder) is the one that served before"
        }
    }
}

// MARK: - plugins unload

extension Navctl.Plugins {
    struct Unload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Take a loaded plugin out of the running daemon.",
            discussion: """
                Its routes disappear, every session pops its screens and those above them, and the plugins that \
                list it as an optional dependency are told it is gone; plugins list then shows it as removed. It \
                stays unloaded across restarts, whatever its folder holds, until plugins load of its folder. The \
                daemon refuses (PluginRefused, code inUse, exit code 2) to unload a plugin another \
                loaded plugin lists as a hard dependency, or one that serves a session's configured root route. \
                Prints "unloaded NAME". --json prints the Unload reply: {}.

                Examples:
                  navctl plugins unload Orders
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        @Argument(
            help: ArgumentHelp("The loaded plugin's name, like Orders.", valueName: "name"),
            completion: NameCompletion.loadedPlugins
        )
        var name: String

        func validate() throws {
            try Self.refuseUnusedRootOptions()
        }

        func run() async throws {
            try await connection.withClient { client throws(NavHostClientError) in
                try await client.unloadPlugin(named: name)
                if output.json { return try JSONOutput.print([:] as KeyValuePairs<String, any Encodable>) }
                Console.print("unloaded \(name)")
            }
        }
    }
}

// MARK: - plugins watch

extension Navctl.Plugins {
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Follow the plugins live: one line per plugin loaded, reloaded, checked, removed or refused.",
            discussion: """
                Prints the plugins as plugins list does, then one line per change: "loaded NAME VERSION from \
                LIBRARY", "reloaded NAME OLD → NEW from LIBRARY", "removed NAME VERSION from FOLDER", "failed NAME VERSION from PATH: \
                CODE: MESSAGE", "checked NAME VERSION from FOLDER" (its folder changed and still holds the build \
                that serves). --json prints every reply as one line, as the Watch replies carry them: \
                {"plugins":[…]} first, then {"event":{"kind":…,"name":…,…}} per change, or \
                {"plugins":[…],"coalesced":true} when navctl fell behind.

                The watch runs until Ctrl-C (SIGINT) or SIGTERM, or until the daemon ends it (it shuts down); each \
                of these exits with code 0. A lost connection exits with 69.

                Examples:
                  navctl plugins watch
                  navctl plugins watch --json | jq -c 'select(.event) | .event'
                """
        )

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            try Self.refuseUnusedRootOptions()
        }

        func run() async throws {
            try await Following.run(
                connection,
                rendering: PluginWatchRenderer(json: output.json)
            ) { client throws(NavHostClientError) in
                try await client.watchPlugins()
            }
        }
    }
}

// MARK: - plugins wait

extension Navctl.Plugins {
    struct Wait: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Wait until the daemon serves the build in a plugin's folder, or refuses it.",
            discussion: """
                For a build copied into the plugins folder the daemon watches, which it loads (or reloads) by \
                itself: says whether it took it. Reads the folder's manifest (the plugin's name and its \
                library's SHA-256) and follows the daemon's plugins until it serves that build from that folder, \
                printing what the daemon did: "loaded NAME VERSION from LIBRARY", "reloaded NAME OLD → NEW from \
                LIBRARY" or "checked NAME VERSION from FOLDER" (the build that served, put in place again), read \
                from the plugin when navctl did not see the event ("serving NAME VERSION from LIBRARY" from a \
                daemon that does not say) (exit 0); or until it refuses it: "Error: refused NAME: \
                CODE: MESSAGE" (exit 2), with "; version V keeps serving" when one loaded before serves on. A \
                folder outside the daemon's plugins folder, which it does not watch, exits with 1 at once \
                (navctl plugins load loads it); no answer within --timeout (default 60) exits with 69, as an \
                unreachable daemon or a lost connection does, and an error reply to the watch with 1. Only an \
                answer the daemon gave after the folder was put in place (its change time) counts: a build \
                refused before and put in place again is waited for, and so is one that serves already, put in \
                place again, until the daemon has checked the folder (its library's checksum, its resources). \
                A build whose reload cost a session screens (started fresh, or removed) is taken all the same, \
                and a warning per session on standard error names them and the file that keeps the session's \
                record from before (not for a build that served before it was put in place again: plugins list \
                notes it). Anyone who can reach the socket may wait.

                With --removed, for a plugin's folder taken out of the plugins folder (moved away or deleted): \
                waits until the daemon no longer serves a plugin from it, printing "removed NAME VERSION from \
                FOLDER" (exit 0; the same when the daemon had removed it before navctl asked, and "nothing \
                serves from FOLDER" when the daemon lists no plugin from it at all), or refuses to remove it: \
                "Error: refused to remove NAME: needed by …; version V keeps serving" (exit 2), when loaded \
                plugins list it as a hard dependency or it serves a session's configured root. The daemon acts \
                once its plugins folder has been still for 2 s (a folder back by then is a replacement). A folder \
                still there exits with 1.

                Examples:
                  navctl plugins wait /usr/lib/navhost/plugins/Orders
                  navctl plugins wait ~/src/navhost/.build/debug/plugins/Orders --timeout 10
                  navctl plugins wait --removed /usr/lib/navhost/plugins/Orders
                """
        )

        @Flag(help: "Wait for the daemon to stop serving the plugin of a folder taken out of its plugins folder.")
        var removed = false

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var pluginFolder: PluginFolderArgument

        func validate() throws {
            try Self.refuseUnusedRootOptions()
        }

        func run() async throws {
            let folder = try pluginFolder.absolute()
            if removed {
                try await waitForRemoval(of: folder)
            } else {
                try await waitForBuild(in: folder)
            }
        }

        private func waitForBuild(in folder: String) async throws {
            let build: StagedBuild
            do {
                build = try StagedBuild(folder: folder)
            } catch {
                Console.printError("Error: \(error)")
                throw ExitCode.failure
            }
            // Where the daemon loads plugins from, and whether it follows that folder, when it says (an older daemon
            // does not): a build it has not answered for yet, outside that folder or in one it does not follow, is not
            // taken by itself. One it serves or refused already is answered below, from the watch's first list.
            let list = try await connection.withClient { client throws(NavHostClientError) in
                try await client.pluginList()
            }
            if build.verdict(in: list.plugins) == .pending, let pluginsFolder = list.pluginsFolder {
                // Loaded by hand from there: a Reload takes a new build; a Load of the folder, anything else.
                let servesFromIt = list.plugins.contains {
                    $0.state == .loaded && PluginFolderPath.isSame($0.folder, as: build.folder)
                }
                if !PluginFolderPath.isSame(pluginsFolder, as: FileIO.parentDirectory(of: build.folder)) {
                    Console.printError(
                        "Error: \(build.folder) is not in the plugins folder of the daemon at \(connection.socketPath) "
                            + "(\(pluginsFolder)), which it does not watch: "
                            + (servesFromIt
                                ? "navctl plugins reload \(build.name) takes the build in it"
                                : "navctl plugins load \(build.folder) loads it from there")
                    )
                    throw ExitCode.failure
                }
                if list.watchesPluginsFolder == false {
                    Console.printError(
                        "Error: the daemon at \(connection.socketPath) does not follow its plugins folder "
                            + "(\(pluginsFolder)): it was started with --no-watch-plugins (watch-plugins: false), or the "
                            + "folder could not be watched when it started (its log says why): navctl plugins load "
                            + "\(build.folder), or navctl plugins reload \(build.name) for a build of a plugin it serves, "
                            + "or SIGHUP"
                    )
                    throw ExitCode.failure
                }
            }
            // The event that answered, when one did: the build served before navctl began to follow otherwise.
            let answeringEvent = Mutex<PluginEvent?>(nil)
            let verdict: StagedBuild.Verdict?
            do {
                verdict = try await Self.follow(connection) { plugins, event throws(NotWatched) in
                    if let folder = build.unwatchedFolder(in: plugins) { throw NotWatched(pluginsFolder: folder) }
                    let verdict = build.verdict(in: plugins)
                    if verdict != .pending { answeringEvent.withLock { $0 = event } }
                    return verdict == .pending ? nil : verdict
                }
            } catch let notWatched as NotWatched {
                Console.printError(
                    "Error: \(build.folder) is not in the plugins folder of the daemon at \(connection.socketPath) "
                        + "(\(notWatched.pluginsFolder)), which it does not watch: navctl plugins load \(build.folder) "
                        + "loads it from there"
                )
                throw ExitCode.failure
            }
            switch verdict {
            case .served(let plugin):
                Console.print(build.describeServing(plugin, answeredBy: answeringEvent.withLock { $0 }))
                // What the reload that made this build serve cost, whichever event answered (a `checked` of this
                // build may come after its `reloaded`); not for a build that served before it was put in place again
                // (plugins list still notes it).
                if build.madeServe(plugin) { warnOfLosses(plugin.lostAtReload) }
            case .refused(let plugin, let reason):
                let serving = plugin.state == .loaded ? "; version \(plugin.version) keeps serving" : ""
                Console.printError("Error: refused \(build.name): \(reason.code): \(reason.message)\(serving)")
                throw ExitCode.requestRefused
            case .pending, nil:
                Console.printError(
                    "Error: the daemon at \(connection.socketPath) gave no answer about \(folder) within "
                        + "\(connection.timeoutDescription) (--timeout): is it busy, and does it watch its "
                        + "plugins folder (watch-plugins)? A folder whose name starts with a dot is never loaded."
                )
                throw ExitCode.daemonUnreachable
            }
        }

        private func waitForRemoval(of folder: String) async throws {
            guard FileIO.kind(of: folder) == nil else {
                Console.printError(
                    "Error: \(folder) is still there: plugins wait --removed is for a plugin's folder taken out of "
                        + "the plugins folder"
                )
                throw ExitCode.failure
            }
            let removal = RemovedPluginFolder(folder: folder)
            // The plugin last seen serving from the folder: the one a removal took out. When the daemon had removed it
            // before the watch began, the list names it as removed.
            let serving = Mutex<PluginInfo?>(nil)
            let verdict = try await Self.follow(connection) { plugins, _ in
                let verdict = removal.verdict(in: plugins)
                switch verdict {
                case .pending, .refused: serving.withLock { $0 = removal.serving(in: plugins) }
                case .removed: serving.withLock { $0 = $0 ?? removal.removedPlugin(in: plugins) }
                }
                return verdict == .pending ? nil : verdict
            }
            switch verdict {
            case .removed:
                guard let plugin = serving.withLock({ $0 }) else {
                    Console.print("nothing serves from \(folder)")
                    return
                }
                Console.print(
                    PluginView.describe(
                        PluginEvent(kind: .removed, name: plugin.name, version: plugin.version, folder: folder)
                    )
                )
            case .refused(let plugin, let refusal):
                Console.printError(
                    "Error: refused to remove \(plugin.name): \(refusal.message); version \(plugin.version) keeps "
                        + "serving"
                )
                throw ExitCode.requestRefused
            case .pending, nil:
                Console.printError(
                    "Error: the daemon at \(connection.socketPath) still serves a plugin from \(folder) after "
                        + "\(connection.timeoutDescription) (--timeout): is it busy, and does it watch its plugins "
                        + "folder (watch-plugins)?"
                )
                throw ExitCode.daemonUnreachable
            }
        }

        /// Follows the daemon's plugins until `answer` finds an answer in them, or `--timeout` passes (`nil`).
        /// `answer` is given the plugins, and the event after which the daemon listed them (`nil` for the list the
        /// watch starts with).
        ///
        /// - Throws: What `answer` throws; `ExitCode` for a lost connection (69) or an error reply to the watch (1:
        ///   exit 2 says the daemon refused what was waited for, which `make install` fails on).
        private static func follow<Answer: Sendable, Failure: Error>(
            _ connection: ConnectionOptions,
            until answer: @escaping @Sendable ([PluginInfo], PluginEvent?) throws(Failure) -> Answer?
        ) async throws -> Answer? {
            let seconds = connection.timeoutSeconds
            do {
                let client = try await NavHostClient.connect(socketPath: connection.socketPath)
                defer { Task { await client.close() } }
                let watch = try await client.watchPlugins()
                return try await withThrowingTaskGroup(of: Answer?.self) { group in
                    group.addTask {
                        for try await update in watch {
                            switch update {
                            case .plugins(let plugins, _):
                                if let found = try answer(plugins, nil) { return found }
                            case .event(let event):
                                // An event names one change: the list says where every plugin stands after it.
                                if let found = try answer(try await client.plugins(), event) { return found }
                            }
                        }
                        throw NavHostClientError(code: .connectionClosed, message: "the daemon ended the watch")
                    }
                    if seconds > 0 {
                        group.addTask {
                            try await Task.sleep(for: .seconds(seconds))
                            return nil
                        }
                    }
                    defer { group.cancelAll() }
                    return try await group.next() ?? nil
                }
            } catch let error as NavHostClientError {
                let code = ConnectionOptions.report(error)
                throw code == .requestRefused ? ExitCode.failure : code
            }
        }

        /// The daemon loads its plugins from another folder than the build's.
        private struct NotWatched: Error {
            let pluginsFolder: String
        }
    }
}

// MARK: - Private

/// Says on standard error what the reload that made a build serve cost the sessions (`lost`, a plugin's
/// `lostAtReload`): its screens that started fresh or were removed, and where each session's record from before is.
private func warnOfLosses(_ lost: [PluginInfo.LostScreens]?) {
    for loss in PluginView.losses(lost ?? []) { Console.printError("warning: \(loss)") }
}

// MARK: - Options they have no use for

/// A `plugins` command: named `plugins NAME` when it refuses an option, and refusing what all of them have no use for.
private protocol PluginsCommand: UnusedRootOptions {}

extension PluginsCommand {
    static var spokenName: String { "plugins \(_commandName)" }
    static var unusedRootOptions: [String: String] {
        ["--session": "the plugins are the daemon's, shared by every session"]
    }
}

extension Navctl.Plugins.List: PluginsCommand {}
extension Navctl.Plugins.Load: PluginsCommand {}
extension Navctl.Plugins.Reload: PluginsCommand {}
extension Navctl.Plugins.Unload: PluginsCommand {}
extension Navctl.Plugins.Watch: PluginsCommand {}
extension Navctl.Plugins.Wait: PluginsCommand {}
