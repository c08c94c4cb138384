import NavHostCore
public import NavHostWire

// The plugin host's statuses and changes in the form io.navhost.Plugins reports them (NavHostWire's `PluginInfo` and
// `PluginEvent`).

// MARK: - PluginInfo

extension PluginStatus {
    /// The plugin as `io.navhost.Plugins.List` reports it.
    public var info: PluginInfo {
        var info = PluginInfo(
            name: name,
            version: version.map { "\($0)" } ?? "",
            state: reportedState,
            path: libraryPath ?? directory,
            sdkVersion: manifest.map { "\($0.sdkVersion)" },
            routes: routes,
            quarantine: quarantineReason?.info,
            lastReloadFailure: lastReloadFailure?.info,
            removalRefused: removalRefused.map {
                PluginInfo.RemovalRefused(neededBy: $0.neededBy, rootOf: $0.rootOf, message: $0.description)
            },
            folder: directory
        )
        info.sha256 = manifest?.sha256
        info.lastRefusedBuild = lastReloadFailure == nil ? nil : lastRefusedBuild
        info.triedAt = triedAt
        info.lostAtReload = lostAtReload.isEmpty ? nil : lostAtReload.map(\.info)
        if isLoaded {
            info.servingSince = servingSince
            info.replacedVersion = replacedVersion.map { "\($0)" }
        }
        return info
    }

    private var reportedState: PluginInfo.State {
        switch state {
        case .loaded: .loaded
        case .removed: .removed
        case .found, .quarantined: .quarantined
        }
    }
}

extension LostScreens {
    /// The loss as `io.navhost.Plugins` reports it.
    var info: PluginInfo.LostScreens {
        PluginInfo.LostScreens(
            session: session,
            startedFresh: startedFresh.map(\.rawValue),
            removed: removed.map(\.rawValue),
            keptAside: keptAside
        )
    }
}

extension QuarantineReason {
    /// The reason as `io.navhost.Plugins` reports it: its code's name and its message.
    var info: PluginInfo.Quarantine { PluginInfo.Quarantine(code: code.name, message: message) }
}

// MARK: - PluginEvent

extension PluginEvent {
    /// `loaded` or `failed`, from the status a load recorded.
    static func outcome(of status: PluginStatus) -> PluginEvent {
        PluginEvent(
            kind: status.isLoaded ? .loaded : .failed,
            name: status.name,
            version: status.version?.description,
            path: status.isLoaded ? status.libraryPath : nil,
            folder: status.directory,
            reason: status.quarantineReason?.info
        )
    }

    /// A new build of `name` replaced a loaded one, costing the sessions what its status's
    /// ``PluginStatus/lostAtReload`` names.
    static func reloaded(_ name: String, _ replacement: PluginRegistry.Replacement) -> PluginEvent {
        let lost = replacement.status.lostAtReload
        return PluginEvent(
            kind: .reloaded,
            name: name,
            version: replacement.newVersion.description,
            previousVersion: replacement.oldVersion?.description,
            path: replacement.status.libraryPath,
            folder: replacement.status.directory,
            lost: lost.isEmpty ? nil : lost.map(\.info)
        )
    }

    /// The folder of the loaded plugin `status` changed and still holds the build that serves: the event names the
    /// folder checked, not the library serving.
    static func checked(_ status: PluginStatus) -> PluginEvent {
        PluginEvent(kind: .checked, name: status.name, version: status.version?.description, folder: status.directory)
    }

    /// `name` was unloaded, or its folder went away.
    static func removed(_ name: String, version: SemanticVersion?, folder: String?) -> PluginEvent {
        PluginEvent(kind: .removed, name: name, version: version?.description, folder: folder)
    }

    /// `name`, or a new build of it, was refused; a loaded one keeps serving.
    static func failed(
        _ name: String,
        version: SemanticVersion? = nil,
        folder: String?,
        reason: QuarantineReason
    ) -> PluginEvent {
        PluginEvent(kind: .failed, name: name, version: version?.description, folder: folder, reason: reason.info)
    }
}
