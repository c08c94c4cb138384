import NavHostWire

// MARK: - A plugin folder taken out of the plugins folder

/// A plugin folder taken out of the plugins folder the daemon watches, as `navctl plugins wait --removed` follows it:
/// the daemon unloads the plugin it served from there, or refuses to, and the plugin keeps serving from its private
/// copy (loaded plugins list it as a hard dependency, or it serves a session's configured root).
struct RemovedPluginFolder: Sendable {
    /// The folder, absolute.
    let folder: String

    /// What the daemon made of the folder's removal.
    enum Verdict: Sendable, Equatable {
        /// Nothing serves from the folder any more.
        case removed
        /// The daemon refused to remove the plugin: it keeps serving, for `refusal`.
        case refused(PluginInfo, refusal: PluginInfo.RemovalRefused)
        /// It serves from the folder still, and has not refused to stop: the daemon has not acted yet.
        case pending
    }

    /// What the daemon whose plugins are `plugins` made of the folder's removal.
    func verdict(in plugins: [PluginInfo]) -> Verdict {
        guard let loaded = serving(in: plugins) else { return .removed }
        if let refusal = loaded.removalRefused { return .refused(loaded, refusal: refusal) }
        return .pending
    }

    /// The plugin among `plugins` that serves from the folder, if one does.
    func serving(in plugins: [PluginInfo]) -> PluginInfo? {
        plugins.first { $0.state == .loaded && StagedBuild.isSameFolder($0.folder, as: folder) }
    }
}
