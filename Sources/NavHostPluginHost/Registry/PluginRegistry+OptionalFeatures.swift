import NavHostKit

// Optional dependencies: what each loaded feature is told of the ones present, and who needs a plugin for real.

extension PluginRegistry {
    /// The loaded plugins that list `name` as a hard dependency, by name: they cannot serve without it.
    public func hardDependents(of name: String) -> [String] {
        loadedPlugins.filter { status in
            status.manifest?.hardDependencies.contains { $0.name == name } == true
        }.map(\.name).sorted()
    }

    /// The dependencies of `manifest` loaded now, in a version it accepts: its hard ones (always, once it is
    /// loaded) and the optional ones that are there. A dependency that changes from optional to hard in a new build
    /// stays present.
    func presentDependencies(of manifest: PluginManifest) -> Set<String> {
        Set(
            manifest.dependencies.filter { dependency in
                guard let status = status(named: dependency.name), status.isLoaded, let version = status.version
                else { return false }
                return dependency.versions.contains(version)
            }.map(\.name)
        )
    }

    /// The ``OptionalFeatures`` the feature of `manifest` gets in its `HostServices`. A reloaded feature gets the
    /// same object, so a ViewModel that follows it across the swap keeps following; it changes only once the new
    /// build serves (``refreshOptionalFeatures()``), not for a build that is then refused.
    func optionalFeatures(for manifest: PluginManifest) -> OptionalFeatures {
        if let existing = optionalFeatures[manifest.name] { return existing }
        let features = OptionalFeatures(present: presentDependencies(of: manifest))
        optionalFeatures[manifest.name] = features
        return features
    }

    /// Tells every loaded feature which of its optional dependencies are loaded now; logs each change of a set.
    /// Called after every load, reload and unload.
    func refreshOptionalFeatures() {
        for status in loadedPlugins {
            guard let manifest = status.manifest, let features = optionalFeatures[status.name] else { continue }
            let present = presentDependencies(of: manifest)
            guard present != features.present else { continue }
            features.update(present: present)
            logger.info(
                "Told a plugin which of its optional features are loaded",
                metadata: [
                    "navhost.plugin": "\(status.name)",
                    "navhost.plugin.present": "\(present.sorted().joined(separator: " "))",
                    "navhost.plugin.absent":
                        "\(manifest.dependencies.map(\.name).filter { !present.contains($0) }.sorted().joined(separator: " "))",
                ]
            )
        }
    }

    /// `hardOrder` (every plugin after its hard dependencies), moved where it can be so that a plugin also comes
    /// after the optional dependencies loaded with it: a feature then starts with them present rather than being
    /// told of them a moment later. Where optional dependencies form a cycle, `hardOrder` stands.
    func loadingOrder(of manifests: [String: PluginManifest], hardOrder: [String]) -> [String] {
        let candidates = Set(hardOrder)
        let all = DependencyGraph(
            dependencies: Dictionary(
                uniqueKeysWithValues: hardOrder.map { name in
                    (name, manifests[name]!.dependencies.map(\.name).filter(candidates.contains))
                }
            )
        )
        return all.cycles.isEmpty && all.order.count == hardOrder.count ? all.order : hardOrder
    }
}
