import Logging
import NavHostCore
import NavHostService

/// Loads the plugins of a directory into the catalog. (Filled in by the plugin registry.)
@MainActor
enum PluginLoading {
    static func loadAll(
        directory: String,
        stateDirectory: String,
        into catalog: FeatureCatalog,
        logger: Logger
    ) -> [PluginReport] {
        []
    }
}
