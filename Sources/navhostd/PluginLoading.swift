import NavHostCore
import NavHostService

extension PluginStatus {
    /// The plugin as `io.navhost.Plugins.List` reports it.
    var report: PluginReport {
        PluginReport(
            name: name,
            version: version.map { "\($0)" } ?? "",
            state: isLoaded ? .loaded : .quarantined,
            path: libraryPath ?? directory,
            sdkVersion: manifest.map { "\($0.sdkVersion)" },
            routes: routes,
            quarantine: quarantineReason.map { PluginReport.Quarantine(code: $0.code.name, message: $0.message) }
        )
    }
}
