import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import NavHostCore
import NavHostKit
import NavHostPluginHost

// MARK: - list

extension NavHostPluginTool {
    /// Lists a plugins folder from its manifests.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Lists the plugins of a folder from their manifests alone; no code is loaded."
        )

        @Argument(help: "The plugins folder, like .build/debug/plugins.")
        var directory: String

        func run() throws {
            try refuseIfNoPluginsFolder(directory)
            // The main thread, which the main actor's work may take in a synchronous main (see NavHostPluginTool).
            MainActor.assumeIsolated {
                let registry = PluginRegistry(
                    catalog: FeatureCatalog(),
                    stateDirectory: "/nonexistent",
                    logger: Logger(label: "navhost-plugin-tool") { _ in SwiftLogNoOpLogHandler() }
                )
                let statuses = registry.scan(directory)
                for status in statuses { print(status) }
                if statuses.isEmpty { printToStandardError("no plugin in \(directory)") }
            }
        }
    }
}

// MARK: - check

extension NavHostPluginTool {
    /// Loads a plugins folder the way the daemon does, and reports each plugin.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Loads every plugin of a folder through the daemon's registry; fails if any is quarantined.",
            discussion: """
                Each plugin is loaded as the daemon loads it: manifest, checksum, ELF, SDK version, dependencies, \
                entry point, routes against the manifest, makeCoordinator. Then each route a loaded plugin lists \
                is asked of its coordinator once, with no parameters, by no session: a route its Route enum has no \
                case for (or whose namespace is not the enum's), which the daemon would find only at the first \
                navigation there (ViewModelFailed), fails the check too. With --sessions, each screen the \
                daemon's sessions saved on a route of a plugin checked is built again as a restart or a reload \
                builds it, and handed its saved restorable state: a screen the new build would start fresh (its \
                state no longer decodes) or cannot show (its route or parameters no longer fit: it goes, with the \
                screens above it) fails the check too; --installed names the daemon's plugins folder, whose \
                manifests say which plugin served a route the new build no longer lists (a saved route no plugin \
                lists, of a plugin's namespace, fails the check: it may be one the new build drops). \
                --accept-loss ROUTE lets the screens of ROUTE go or start fresh on purpose. Exits with 1 on any \
                failure.
                """
        )

        @Argument(help: "The plugins folder, like .build/debug/plugins.")
        var directory: String

        @Option(help: "The state folder for the plugins' stores; by default a new temporary one, removed afterwards.")
        var stateDir: String?

        @Option(
            help: ArgumentHelp(
                "A daemon's saved sessions, like /var/lib/navhost/sessions: check what the plugins would make of them. "
                    + "Read only; the daemon may be running.",
                valueName: "folder"
            )
        )
        var sessions: String?

        @Option(
            help: ArgumentHelp(
                "With --sessions: the daemon's plugins folder, whose manifests say which plugin a saved screen's route "
                    + "belongs to (a route a new build no longer lists is then still its). Without it, a route no "
                    + "plugin checked lists fails the check when it is of a plugin's namespace.",
                valueName: "folder"
            )
        )
        var installed: String?

        @Option(
            name: .customLong("accept-loss"),
            help: ArgumentHelp(
                "With --sessions: a route whose saved screens may go or start fresh on purpose (a route the new build "
                    + "drops, a state it resets): they are noted and do not fail the check. Repeat it for more routes.",
                valueName: "route"
            )
        )
        var acceptedLosses: [String] = []

        @Flag(help: "Log each outcome to standard error.")
        var verbose = false

        func validate() throws {
            guard sessions == nil else { return }
            if installed != nil { throw ValidationError("--installed goes with --sessions") }
            if !acceptedLosses.isEmpty { throw ValidationError("--accept-loss goes with --sessions") }
        }

        func run() throws {
            try refuseIfNoPluginsFolder(directory)
            try MainActor.assumeIsolated { try check() }
        }

        @MainActor
        private func check() throws {
            let temporary = stateDir == nil ? try makeTemporaryDirectory() : nil
            defer { if let temporary { try? FileManager.default.removeItem(atPath: temporary) } }
            var logger = Logger(label: "navhost-plugin-tool") { StreamLogHandler.standardError(label: $0) }
            logger.logLevel = verbose ? .info : .critical
            let registry = PluginRegistry(
                catalog: FeatureCatalog(),
                stateDirectory: stateDir ?? temporary!,
                logger: logger
            )
            let statuses = registry.loadAll(from: directory)
            for status in statuses {
                let duration = status.loadDuration.map { " (\(format($0)))" } ?? ""
                print("\(status)\(duration)")
            }
            let quarantined = statuses.filter { !$0.isLoaded }.count
            print("\(statuses.count - quarantined) loaded, \(quarantined) quarantined")
            // Loaded, a plugin may still list a route its coordinator cannot build: the daemon finds it only at the
            // first navigation there.
            let unknownRoutes = statuses.filter(\.isLoaded).flatMap { status in
                registry.catalog.unknownRoutes(of: status.name) { route in
                    CrashNote.set(
                        "Error: \(status.name) crashed when its coordinator was asked for the route \(route) with no "
                            + "parameters: a navigation there without them would take the daemon down the same way. "
                            + "For parameters a route cannot do without, throw RouteError.invalidParameters."
                    )
                }
            }
            CrashNote.set(nil)
            for unknown in unknownRoutes {
                printToStandardError("Error: \(unknown): a navigation there fails with ViewModelFailed")
            }
            // A hard dependency no folder here holds, as opposed to one here that was refused.
            let present = Set(statuses.map(\.name))
            let absent = statuses.filter { $0.quarantineReason?.code == .dependencyMissing }
                .flatMap { $0.manifest?.hardDependencies.map(\.name) ?? [] }
                .filter { !present.contains($0) }
            if !absent.isEmpty {
                printToStandardError(
                    "hint: check loads a plugin's hard dependencies from \(directory) only: copy the staged folder of "
                        + "\(Set(absent).sorted().joined(separator: ", ")) there"
                )
            }
            if statuses.isEmpty { printToStandardError("no plugin in \(directory): nothing to check") }
            if sessions != nil, stateDir != nil {
                // The screens are built again with the plugins' stores in that folder: a live daemon's, perhaps.
                printToStandardError(
                    "note: the screens built again to check the sessions use the stores in \(stateDir ?? ""): what "
                        + "their initialisers write goes there; leave --state-dir out to use a temporary folder"
                )
            }
            let findings = try sessions.map { folder in
                try SavedSessionsCheck(registry: registry, installed: installed, acceptedLosses: Set(acceptedLosses))
                    .run(on: folder)
            }
            if quarantined > 0 || statuses.isEmpty || !unknownRoutes.isEmpty || findings?.passed == false {
                throw ExitCode.failure
            }
        }

        private func makeTemporaryDirectory() throws -> String {
            var template = Array("\(FileManager.default.temporaryDirectory.path)/navhost-check-XXXXXX".utf8CString)
            guard let path = mkdtemp(&template) else { throw ValidationError("cannot create a temporary folder") }
            return String(cString: path)
        }

        private func format(_ duration: Duration) -> String {
            let microseconds =
                duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
            return "\(Double(microseconds) / 1000) ms"
        }
    }
}
