import NavHostClient
import NavHostWire

/// The human-readable forms of plugins and their changes.
///
/// ```
/// NAME      VERSION  STATE    ROUTES                          NOTE
/// Products  1.0.0    loaded   products.list, products.detail
/// Settings  1.0.0    loaded   settings.main                   removal refused: needed by Home
/// Orders    1.2.0    removed  orders.list
///
/// reloaded Products 1.0.0 → 1.1.0 from /var/lib/navhost/plugin-images/Products-2.so
/// failed Products 1.2.0 from /usr/lib/navhost/plugins/Products: checksumMismatch: …
/// ```
enum PluginView {
    /// A table of plugins: name, version, state, routes, and a note: why a quarantined one was refused, why a
    /// loaded one whose folder is gone keeps serving, that it was unloaded or loaded by hand, why its last new build
    /// was refused, which screens of which sessions the reload that made it serve cost.
    ///
    /// A name listed more than once (a copy refused as `duplicateName`, a row unloaded by hand beside the one
    /// serving) has each row's folder in its note, to tell them apart.
    static func lines(_ plugins: [PluginInfo]) -> [String] {
        let shared = Dictionary(grouping: plugins, by: \.name).filter { $0.value.count > 1 }.keys
        let rows = plugins.map { plugin in
            [
                plugin.name, plugin.version, plugin.state.rawValue, Table.list(plugin.routes),
                note(on: plugin, namingFolder: shared.contains(plugin.name)),
            ]
        }
        return Table.lines(header: ["NAME", "VERSION", "STATE", "ROUTES", "NOTE"], rows: rows)
    }

    /// What the table's last column says of `plugin`; with `namingFolder`, first the folder it is in (unless a
    /// later note names it).
    static func note(on plugin: PluginInfo, namingFolder: Bool = false) -> String {
        var notes: [String] = []
        if namingFolder, let folder = plugin.folder, plugin.unloadedByHand != true, plugin.loadedByHand != true {
            notes.append("in \(folder)")
        }
        if let quarantine = plugin.quarantine { notes.append("\(quarantine.code): \(quarantine.message)") }
        if let refusal = plugin.removalRefused { notes.append("removal refused: \(refusal.message)") }
        if plugin.unloadedByHand == true {
            notes.append("unloaded by hand: plugins load \(plugin.folder ?? plugin.path) brings it back")
        }
        if plugin.loadedByHand == true { notes.append("loaded by hand from \(plugin.folder ?? plugin.path)") }
        if let failure = plugin.lastReloadFailure {
            // The serving build itself, when its folder no longer holds it whole: a restart would refuse it.
            let isServingBuild = plugin.lastRefusedBuild != nil && plugin.lastRefusedBuild == plugin.sha256
            let which = isServingBuild ? "its folder's build" : "new build"
            notes.append("\(which) refused: \(failure.code): \(failure.message)")
        }
        for loss in plugin.lostAtReload ?? [] { notes.append(note(on: loss)) }
        return notes.joined(separator: "; ")
    }

    /// A change on one line: what happened, to which plugin, which version (`old → new` for a reload), from where,
    /// and why it was refused.
    static func describe(_ event: PluginEvent) -> String {
        var line = "\(event.kind) \(event.name)"
        switch (event.previousVersion, event.version) {
        case (let previous?, let version?): line += " \(previous) → \(version)"
        case (nil, let version?): line += " \(version)"
        case (let previous?, nil): line += " \(previous)"
        case (nil, nil): break
        }
        // The library serving now; else the plugin's folder (a refused build, a removal).
        if let from = event.path ?? event.folder { line += " from \(from)" }
        if let reason = event.reason { line += ": \(reason.code): \(reason.message)" }
        // One line, whatever a plugin's message holds: a line break in it would make an event line of its own.
        return Console.escapingControlCharacters(line)
    }

    /// One line per session that lost screens to a reload (`lost`, from a `reloaded` event or a plugin's
    /// `lostAtReload`): which screens started fresh, which were removed, and where the record from before is.
    ///
    /// ```
    /// session main: screen s2 started fresh (its saved state does not decode with this build); screen s3 removed
    /// (this build cannot show it), with s4 above it; its record from before is kept in /var/lib/navhost/sessions/…
    /// ```
    static func losses(_ lost: [PluginInfo.LostScreens]) -> [String] {
        lost.map { loss in
            var parts: [String] = []
            if !loss.startedFresh.isEmpty {
                let its = loss.startedFresh.count == 1 ? "its" : "their"
                parts.append(
                    "\(screens(loss.startedFresh)) started fresh (\(its) saved state does not decode with this build)"
                )
            }
            if let first = loss.removed.first {
                // The first could not be built; those above it go with it, whatever plugin shows them.
                let above = loss.removed.dropFirst()
                parts.append(
                    "screen \(first) removed (this build cannot show it)"
                        + (above.isEmpty ? "" : ", with \(above.joined(separator: " ")) above it")
                )
            }
            parts.append(
                loss.keptAside.map { "its record from before is kept in \($0)" } ?? "no record from before was kept"
            )
            return "session \(loss.session): " + parts.joined(separator: "; ")
        }
    }

    /// What a table's note says of `lostAtReload`, session by session.
    fileprivate static func note(on loss: PluginInfo.LostScreens) -> String {
        var what: [String] = []
        if !loss.startedFresh.isEmpty { what.append("started \(loss.startedFresh.joined(separator: " ")) fresh") }
        if !loss.removed.isEmpty { what.append("removed \(loss.removed.joined(separator: " "))") }
        return "its reload \(what.joined(separator: " and ")) in session \(loss.session)"
            + (loss.keptAside.map { ", record before in \($0)" } ?? "")
    }

    private static func screens(_ ids: [String]) -> String {
        (ids.count == 1 ? "screen " : "screens ") + ids.joined(separator: " ")
    }
}

/// Prints a plugin watch's updates as they arrive.
struct PluginWatchRenderer: UpdateRenderer {
    /// Whether to print each update as one JSON line, in its wire form.
    let json: Bool

    /// Prints `update`: the table of plugins for a whole list, one line for an event.
    func render(_ update: PluginWatchUpdate) throws(NavHostClientError) {
        switch update {
        case .plugins(let plugins, coalesced: true):
            if json { return try JSONOutput.print(["plugins": plugins, "coalesced": true]) }
            Console.print("coalesced: navctl fell behind, some events were skipped; the plugins now:")
            PluginView.lines(plugins).forEach(Console.print)
        case .plugins(let plugins, coalesced: false):
            if json { return try JSONOutput.print(["plugins": plugins]) }
            PluginView.lines(plugins).forEach(Console.print)
        case .event(let event):
            if json { return try JSONOutput.print(["event": event]) }
            Console.print(PluginView.describe(event))
            for loss in PluginView.losses(event.lost ?? []) { Console.print("  lost: \(loss)") }
        }
    }
}
