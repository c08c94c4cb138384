import ArgumentParser
import NavHostCore
import NavHostKit
import NavHostPluginHost
import NavHostStorage

/// `navhost-plugin-tool check --sessions`: what the plugins a check loaded would make of the screens a daemon's
/// sessions saved, each built again as a restart or a reload builds it and handed its saved restorable state.
@MainActor
struct SavedSessionsCheck {
    /// What the check found.
    struct Findings {
        /// The saved screens that would not come back as they were (those dropped with one included).
        var lost = 0
        /// The saved screens on a route no plugin lists, of the namespace of a plugin checked: whether its new build
        /// drops them cannot be told.
        var unsure = 0

        /// Whether every saved screen checked comes back as it was, or its loss was accepted.
        var passed: Bool { lost == 0 && unsure == 0 }
    }

    /// Who shows a saved screen's route, as far as the check can tell.
    private enum Owner {
        /// A plugin checked: the screen is built again.
        case checked(PluginStatus)
        /// A plugin checked may have served it (its namespace), but nothing says so.
        case unsure(PluginStatus)
        /// Another plugin, or none the check knows of: not this check's concern.
        case other
    }

    /// The registry of the check, its plugins loaded.
    let registry: PluginRegistry
    /// The daemon's plugins folder, whose manifests say which plugin a route belongs to; `nil` when not given.
    let installed: String?
    /// The routes whose screens may go or start fresh on purpose: a route the new build drops, a state it resets.
    let acceptedLosses: Set<String>

    /// Checks the sessions saved in `folder` (a state folder's `sessions`, or the state folder itself), printing a line
    /// per screen that would not come back as it was.
    ///
    /// - Throws: `ExitCode.failure` when `folder` holds no saved session, or cannot be read.
    func run(on folder: String) throws -> Findings {
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
        var findings = Findings()
        var checked = 0
        var accepted = 0
        var unsureRoutes: Set<String> = []
        for record in saved.records {
            stack: for (index, screen) in record.stack.enumerated() {
                let plugin: PluginStatus
                switch owner(of: screen.route, owners: owners) {
                case .checked(let owner):
                    plugin = owner
                case .unsure(let owner):
                    if acceptedLosses.contains(screen.route) {
                        accepted += 1
                        guard unsureRoutes.insert(screen.route).inserted else { continue }
                        printToStandardError(
                            "note: a saved screen shows \(screen.route), which no plugin lists: not checked, its loss "
                                + "accepted (--accept-loss \(screen.route))"
                        )
                        continue
                    }
                    findings.unsure += 1
                    guard unsureRoutes.insert(screen.route).inserted else { continue }
                    printToStandardError(
                        "Error: a saved screen shows \(screen.route), which no plugin "
                            + (installed.map { "in \($0)" } ?? "checked") + " lists; if \(owner.name) served it, "
                            + "its new build cannot show it: "
                            + (installed == nil
                                ? "--installed <the daemon's plugins folder> tells"
                                : "is that the folder the daemon loads \(owner.name) from?")
                            + " (--accept-loss \(screen.route) if it goes on purpose)"
                    )
                    continue
                case .other:
                    continue
                }
                checked += 1
                let build = "\(plugin.name) \(plugin.version.map { "\($0)" } ?? "")"
                let place = "session \(record.session): screen \(screen.id) (\(screen.route))"
                let isAccepted = acceptedLosses.contains(screen.route)
                let severity = isAccepted ? "note" : "Error"
                let acceptance = isAccepted ? " (accepted: --accept-loss \(screen.route))" : ""
                CrashNote.set("Error: \(plugin.name) crashed when asked to build \(place) again")
                defer { CrashNote.set(nil) }
                switch registry.catalog.fate(of: screen) {
                case .asItWas:
                    continue
                case .startsFresh(let reason):
                    if isAccepted { accepted += 1 } else { findings.lost += 1 }
                    printToStandardError(
                        "\(severity): \(place) would start fresh with \(build): its saved state does not come back "
                            + "(\(reason))"
                            + (isAccepted
                                ? acceptance : "; make the new RestorableState decode what the old build saved")
                    )
                case .cannotShow(let reason):
                    // Every screen above it goes with it, whatever plugin shows it: accepted only where its route is.
                    let above = record.stack.count - index - 1
                    let unaccepted = record.stack[(index + 1)...].filter { !acceptedLosses.contains($0.route) }.count
                    checked += above
                    let lost = isAccepted ? unaccepted : above + 1
                    findings.lost += lost
                    accepted += above + 1 - lost
                    let consequence =
                        index == 0
                        ? "the session would lose its whole stack: a reload is refused while the session is configured "
                            + "to start there, and a restart starts it at its configured root"
                        : "it would be dropped" + (above == 0 ? "" : ", with \(Self.count(above, "screen")) above it")
                    let partly =
                        isAccepted && unaccepted > 0
                        ? " (accepted for \(screen.route), not for \(Self.count(unaccepted, "screen")) above it on "
                            + "other routes: --accept-loss those too)"
                        : acceptance
                    printToStandardError(
                        "\(lost > 0 ? "Error" : "note"): \(place) cannot be shown by \(build) (\(reason)): "
                            + "\(consequence)\(partly)"
                    )
                    break stack
                }
            }
        }
        let unchecked = registry.quarantinedPlugins.map(\.name)
        var summary =
            "\(Self.count(saved.records.count, "saved session")), \(Self.count(checked, "screen")) checked: "
            + (findings.lost > 0
                ? "\(findings.lost) would not come back as \(findings.lost == 1 ? "it was" : "they were")"
                : accepted > 0 ? "none lost but those accepted" : "every one comes back as it was")
        if accepted > 0 { summary += "; \(accepted) accepted as lost (--accept-loss)" }
        if findings.unsure > 0 {
            summary += "; \(Self.count(findings.unsure, "screen")) on a route no plugin lists, not checked"
        }
        if !unchecked.isEmpty {
            summary += " (not checked: the screens of \(unchecked.joined(separator: ", ")), quarantined)"
        }
        print(summary)
        return findings
    }

    /// Who shows `route`: the loaded plugin that lists it, or the one the installed plugins folder's manifests say
    /// it belongs to (a route a new build no longer lists). A route no list names, of a namespace a plugin checked
    /// uses, may be one its new build drops: the check cannot tell (another plugin may share the namespace, or
    /// ``installed`` may not be the folder the daemon loads it from).
    private func owner(of route: String, owners: [String: String]?) -> Owner {
        let loaded = registry.loadedPlugins
        if let plugin = loaded.first(where: { $0.routes.contains(route) }) { return .checked(plugin) }
        if let owner = owners?[route] {
            return loaded.first { $0.name == owner }.map(Owner.checked) ?? .other
        }
        let namespace = route.split(separator: ".").first
        if let plugin = loaded.first(where: { $0.routes.contains { $0.split(separator: ".").first == namespace } }) {
            return .unsure(plugin)
        }
        return .other
    }

    /// Which plugin each route belongs to, from the manifests in ``installed``; `nil` without it. A plugin checked
    /// that has no build there is noted: the folder is likely not the one the daemon loads it from.
    private func installedOwners() -> [String: String]? {
        guard let installed else { return nil }
        guard let candidates = try? PluginDirectory.candidates(in: installed) else {
            printToStandardError("note: cannot read the plugins folder \(installed): the routes' plugins are guessed")
            return nil
        }
        var owners: [String: String] = [:]
        var names: Set<String> = []
        for candidate in candidates {
            guard case .success(let manifest) = candidate.manifest else { continue }
            names.insert(manifest.name)
            for route in manifest.routeIDs { owners[route] = manifest.name }
        }
        for plugin in registry.loadedPlugins where !names.contains(plugin.name) {
            printToStandardError(
                "note: \(installed) holds no build of \(plugin.name): if a daemon serves it, it loads it from another "
                    + "folder, and the routes its new build drops are not known (give that folder as --installed, "
                    + "or as PLUGINDIR=… to make check)"
            )
        }
        return owners
    }

    /// `3 screens`, `1 screen`.
    private static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
