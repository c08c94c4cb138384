import FixtureFeatures
package import Logging
import NavHostCore
import NavHostKit
import NavHostService
import NavHostTesting
package import NavHostVarlink
import NavHostWire

/// What one fuzz input talks to: NavHost's real `io.navhost.Navigation` and `io.navhost.Plugins` handlers over a
/// real `SessionRegistry`, whose catalog holds two in-process fixture features (`Shop`, `Account`), with two
/// sessions open: `main` at `shop.list` and `kiosk` at `account.profile`.
///
/// Every input gets a fresh host, so inputs do not influence each other and a crash file reproduces alone. There is
/// no persistence (nothing is written to disk); feature storage is in memory.
@MainActor
package final class NavigationFuzzHost {
    /// The user allowed to control: the fuzzer's peer is this user, so every handler runs past the access check.
    package static let controllingPeer = VarlinkPeerCredentials(pid: 4242, uid: 0, gid: 0)

    /// The sessions every host opens.
    static let sessions = [
        SessionConfiguration(name: "main", root: RouteRequest(id: "shop.list")),
        SessionConfiguration(name: "kiosk", root: RouteRequest(id: "account.profile", parameters: ["userID": "u1"])),
    ]

    private let registry: SessionRegistry

    /// The Varlink service, as `navhostd` builds it.
    package let service: VarlinkService

    package init(logger: Logger) throws {
        let catalog = FeatureCatalog()
        let store = InMemoryKeyValueStore()
        for feature in [ShopFeature(), AccountFeature()] as [any FeatureModule] {
            let services = HostServices(
                logger: FeatureLogger(swiftLog: logger, feature: feature.name),
                clock: ContinuousClock(),
                store: store,
                resourceDirectory: "/nonexistent"
            )
            try catalog.register(feature, services: services)
        }
        registry = SessionRegistry(catalog: catalog, logger: logger)
        var service = VarlinkService(
            vendor: "NavHost",
            product: "navhost-fuzz",
            version: "0",
            url: "https://github.com/navhost/navhost"
        )
        let access = AccessControl(AccessPolicy(controlUIDs: [Self.controllingPeer.uid], controlGIDs: []))
        service.add(NavigationInterface.implementation(sessions: registry, access: access))
        // No plugin control: it would load libraries. Load, Reload and Unload run past the access check and decode
        // their parameters, then answer PluginRefused.
        service.add(PluginsInterface.implementation(reports: { Self.pluginReports }, access: access))
        self.service = service
        try openSessions()
    }

    /// Closes every session (screens disappear, watchers end, as when the daemon stops) and opens them afresh.
    package func restartSessions() throws {
        registry.closeAll()
        try openSessions()
    }

    /// Closes every session.
    package func close() {
        registry.closeAll()
    }

    private func openSessions() throws {
        // As navhostd does: OpenSession and CloseSession refuse the configured names with SessionConfigured.
        registry.declareConfiguredSessions(Set(Self.sessions.map(\.name)))
        for configuration in Self.sessions {
            try registry.open(configuration)
        }
    }

    /// What `io.navhost.Plugins.List` reports: the fixture features as loaded, and one quarantined plugin.
    private nonisolated static let pluginReports = [
        PluginInfo(
            name: "Shop",
            version: "1.0.0",
            state: .loaded,
            path: "/usr/lib/navhost/plugins/Shop",
            sdkVersion: NavHostKitVersion.current.description,
            routes: ["shop.list", "shop.detail", "shop.cart"],
            quarantine: nil
        ),
        PluginInfo(
            name: "Account",
            version: "1.0.0",
            state: .loaded,
            path: "/usr/lib/navhost/plugins/Account",
            sdkVersion: NavHostKitVersion.current.description,
            routes: ["account.profile", "account.settings"],
            quarantine: nil
        ),
        PluginInfo(
            name: "Broken",
            version: "0.1.0",
            state: .quarantined,
            path: "/usr/lib/navhost/plugins/Broken",
            sdkVersion: nil,
            routes: [],
            quarantine: PluginInfo.Quarantine(code: "SDKMismatch", message: "built against another SDK")
        ),
    ]
}
