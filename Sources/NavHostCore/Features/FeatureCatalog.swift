public import NavHostKit

/// The features the daemon serves and the routes each one offers.
///
/// Route IDs are unique across features: registering a feature whose route another feature already offers is
/// refused as a whole, so a route always has exactly one owner.
@MainActor
public final class FeatureCatalog {
    /// A feature as the catalog holds it.
    public struct Entry {
        public let module: any FeatureModule
        public let coordinator: any FeatureCoordinator
        public let screens: [ScreenDescriptor]
    }

    /// Why a feature could not join the catalog.
    public enum RegistrationError: Error, Equatable, Sendable, CustomStringConvertible {
        /// Another feature already serves this name.
        case duplicateFeature(String)
        /// Another feature already offers this route.
        case routeConflict(route: String, owner: String)
        /// A route ID is not `namespace.name`.
        case malformedRoute(String)
        /// The feature's composition root threw.
        case coordinatorFailed(String)
        /// The caller refused the new coordinator of a replacement, for this reason.
        case refused(String)

        public var description: String {
            switch self {
            case .duplicateFeature(let name): return "a feature named \(name) is already loaded"
            case .routeConflict(let route, let owner): return "route \(route) is already offered by \(owner)"
            case .malformedRoute(let route): return "route ID \"\(route)\" is not namespace.name"
            case .coordinatorFailed(let reason): return "makeCoordinator threw: \(reason)"
            case .refused(let reason): return reason
            }
        }
    }

    // MARK: Private Properties

    private var entries: [String: Entry] = [:]
    private var owners: [String: String] = [:]

    // MARK: Initialization

    public init() {}

    // MARK: Public Properties

    /// The names of the registered features, sorted.
    public var featureNames: [String] { entries.keys.sorted() }

    /// Every route offered, sorted by ID, with the feature that offers it.
    public var routes: [(feature: String, screen: ScreenDescriptor)] {
        entries.values
            .flatMap { entry in entry.screens.map { (entry.module.name, $0) } }
            .sorted { $0.1.route < $1.1.route }
    }

    // MARK: Public Functions

    /// Adds a feature: checks its routes, then builds its composition root with `services`, whose store refuses the
    /// writes of an intent answered `IntentTimedOut` (``IntentGuardedStore``).
    public func register(_ module: any FeatureModule, services: HostServices) throws(RegistrationError) {
        try validate(module)
        let coordinator: any FeatureCoordinator
        do {
            coordinator = try module.makeCoordinator(services: services.guardingStoreWrites())
        } catch {
            throw .coordinatorFailed("\(error)")
        }
        insert(Entry(module: module, coordinator: coordinator, screens: module.screens))
    }

    /// Swaps the feature `replaced` for `module` as one step: checks `module`'s routes as if `replaced` were gone,
    /// builds its composition root with `services`, then removes `replaced`'s routes and adds `module`'s.
    ///
    /// If a check fails or the composition root throws, nothing changes: `replaced` keeps serving.
    ///
    /// - Parameter refusal: Why the caller refuses the new composition root, asked before anything is swapped (a
    ///   session's root it cannot build); `nil` to take it.
    /// - Returns: The entry that was replaced.
    @discardableResult
    public func replace(
        _ replaced: String,
        with module: any FeatureModule,
        services: HostServices,
        accepting refusal: (any FeatureCoordinator) -> String? = { _ in nil }
    ) throws(RegistrationError) -> Entry? {
        try validate(module, replacing: replaced)
        let coordinator: any FeatureCoordinator
        do {
            coordinator = try module.makeCoordinator(services: services.guardingStoreWrites())
        } catch {
            throw .coordinatorFailed("\(error)")
        }
        if let reason = refusal(coordinator) { throw .refused(reason) }
        let old = entries[replaced]
        unregister(replaced)
        insert(Entry(module: module, coordinator: coordinator, screens: module.screens))
        return old
    }

    /// Checks that `module` could join: its name and routes are free and well formed.
    public func validate(_ module: any FeatureModule, replacing replaced: String? = nil) throws(RegistrationError) {
        if entries[module.name] != nil, module.name != replaced { throw .duplicateFeature(module.name) }
        for screen in module.screens {
            let parts = screen.route.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count >= 2, !parts.contains(where: \.isEmpty) else { throw .malformedRoute(screen.route) }
            if let owner = owners[screen.route], owner != module.name, owner != replaced {
                throw .routeConflict(route: screen.route, owner: owner)
            }
        }
    }

    /// Removes a feature and its routes; returns whether it was there.
    @discardableResult
    public func unregister(_ name: String) -> Bool {
        guard let entry = entries.removeValue(forKey: name) else { return false }
        for screen in entry.screens where owners[screen.route] == name { owners[screen.route] = nil }
        return true
    }

    /// The feature registered under `name`.
    public func entry(named name: String) -> Entry? { entries[name] }

    /// The name of the feature that offers `route`.
    public func owner(ofRoute route: String) -> String? { owners[route] }

    /// Builds the ViewModel for `request` through the feature that offers it.
    func makeViewModel(
        for request: RouteRequest,
        navigation: any NavigationHandler,
        screen: ScreenID
    ) throws(NavigationError) -> any ViewModel {
        guard let owner = owners[request.id], let entry = entries[owner] else {
            throw .routeNotFound(request.id)
        }
        do {
            return try entry.coordinator.makeViewModel(for: request, navigation: navigation, screen: screen)
        } catch RouteError.unknownRoute {
            // The feature lists the route among its screens, so the route is offered: the feature cannot build it,
            // most likely a descriptor's route with no case of that name (or namespace) in its Route enum.
            throw NavigationError(
                .viewModelFailed,
                UnknownRoute(feature: owner, route: request.id).description,
                parameters: ["route": .string(request.id)]
            )
        } catch RouteError.invalidParameters(let route, let reason) {
            throw NavigationError(
                .invalidRouteParameters,
                "bad parameters for \(route): \(reason)",
                parameters: ["route": .string(route), "reason": .string(reason)]
            )
        } catch {
            throw NavigationError(
                .viewModelFailed,
                "\(owner) could not build \(request.id): \(error)",
                parameters: ["route": .string(request.id)]
            )
        }
    }
}

// MARK: - Private Functions

extension FeatureCatalog {
    fileprivate func insert(_ entry: Entry) {
        entries[entry.module.name] = entry
        for screen in entry.screens { owners[screen.route] = entry.module.name }
    }
}
