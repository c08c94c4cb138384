import ArgumentParser
import NavHostCore
import NavHostKit
import NavHostPluginHost
import NavHostStorage

/// `navhost-plugin-tool check --sessions`: what the plugins a check loaded would make of the screens a daemon's
/// sessions saved, each built again as a restart or a reload builds it and handed its saved restorable state.
@MainActor
struct SavedSessionsCheck {
    /// The registry of the check, its plugins loaded.
    let registry: PluginRegistry
    /// The daemon's plugins folder, whose manifests say which plugin a route belongs to; `nil` when not given.
    let installed: String?

    /// Checks the sessions saved in `folder` (a state folder's `sessions`, or the state folder itself), printing a line
    /// per screen that would not come back as it was.
    ///
    /// - Returns: How many saved screens would not come back as they were (those dropped with one included).
    /// - Throws: `ExitCode.failure` when `folder` holds no saved session, or cannot be read.
    func run(on folder: String) throws -> Int {
        let sessions = FileIO.kind(of: "\(folder)/sessions") == .directory ? "\(folder)/sessions" : folder
        let saved: (records: [SessionRecord], untrusted: [String])
        do {
            saved = try SessionStateFile.records(in: sessions)
        } catch {
            printToStandardError("Error: cannot read the sessions in \(sessions): \(error)")
            throw ExitCode.failure
        }
        for path in saved.untrusted {
            printToStandardError(
                "note: \(path) cannot be trusted (the daemon moves it aside and starts its session fresh)"
            )
        }
        guard !saved.records.isEmpty || !saved.untrusted.isEmpty else {
            printToStandardError(
                "Error: no saved session in \(sessions): give a daemon's state folder, or its sessions folder "
                    + "(/var/lib/navhost/sessions)"
            )
            throw ExitCode.failure
        }
        let owners = installedOwners()
        var checked = 0
        var lost = 0
        for record in saved.records {
            stack: for (index, screen) in record.stack.enumerated() {
                guard let plugin = plugin(serving: screen.route, owners: owners) else { continue }
                checked += 1
                let build = "\(plugin.name) \(plugin.version.map { "\($0)" } ?? "")"
                let place = "session \(record.session): screen \(screen.id) (\(screen.route))"
                CrashNote.set("Error: \(plugin.name) crashed when asked to build \(place) again")
                defer { CrashNote.set(nil) }
                switch registry.catalog.fate(of: screen) {
                case .asItWas:
                    continue
                case .startsFresh(let reason):
                    lost += 1
                    printToStandardError(
                        "Error: \(place) would start fresh with \(build): its saved state does not come back "
                            + "(\(reason)); make the new RestorableState decode what the old build saved"
                    )
                case .cannotShow(let reason):
                    // Every screen above it goes with it, whatever plugin shows it.
                    let above = record.stack.count - index - 1
                    checked += above
                    lost += above + 1
                    let consequence =
                        index == 0
                        ? "the session would lose its whole stack: a reload is refused while the session is configured "
                            + "to start there, and a restart starts it at its configured root"
                        : "it would be dropped" + (above == 0 ? "" : ", with \(Self.count(above, "screen")) above it")
                    printToStandardError("Error: \(place) cannot be shown by \(build) (\(reason)): \(consequence)")
                    break stack
                }
            }
        }
        let unchecked = registry.quarantinedPlugins.map(\.name)
        print(
            "\(Self.count(saved.records.count, "saved session")), \(Self.count(checked, "screen")) checked: "
                + (lost == 0 ? "every one comes back as it was" : "\(lost) would not come back as they were")
                + (unchecked.isEmpty
                    ? "" : " (not checked: the screens of \(unchecked.joined(separator: ", ")), quarantined)")
        )
        return lost
    }

    /// The plugin of the check that serves `route`: the loaded plugin that lists it, or the one the installed
    /// plugins folder's manifests say it belongs to (a route a new build no longer lists). Without those manifests,
    /// a route no plugin lists but of a namespace one of them uses is noted, and not checked: another plugin may
    /// share the namespace.
    private func plugin(serving route: String, owners: [String: String]?) -> PluginStatus? {
        let loaded = registry.loadedPlugins
        if let plugin = loaded.first(where: { $0.routes.contains(route) }) { return plugin }
        if let owners {
            return owners[route].flatMap { owner in loaded.first { $0.name == owner } }
        }
        let namespace = route.split(separator: ".").first
        if let plugin = loaded.first(where: { $0.routes.contains { $0.split(separator: ".").first == namespace } }) {
            printToStandardError(
                "note: a saved screen shows \(route), which no plugin checked lists; if \(plugin.name) served it, its "
                    + "new build cannot show it (--installed <the daemon's plugins folder> tells)"
            )
        }
        return nil
    }

    /// Which plugin each route belongs to, from the manifests in ``installed``; `nil` without it.
    private func installedOwners() -> [String: String]? {
        guard let installed else { return nil }
        guard let candidates = try? PluginDirectory.candidates(in: installed) else {
            printToStandardError("note: cannot read the plugins folder \(installed): the routes' plugins are guessed")
            return nil
        }
        var owners: [String: String] = [:]
        for candidate in candidates {
            guard case .success(let manifest) = candidate.manifest else { continue }
            for route in manifest.routeIDs { owners[route] = manifest.name }
        }
        return owners
    }

    /// `3 screens`, `1 screen`.
    private static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
