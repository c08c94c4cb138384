package import NavHostKit

// Finding, before any session asks, the routes a feature lists that its coordinator cannot build.

extension FeatureCatalog {
    /// A route a feature lists among its screens that its coordinator does not know.
    package struct UnknownRoute: Sendable, Hashable, CustomStringConvertible {
        /// The feature's name.
        package var feature: String
        /// The route, as its screen descriptor lists it.
        package var route: String

        package var description: String {
            "\(feature) lists \(route) among its screens but its coordinator does not know it "
                + "(RouteError.unknownRoute): its Route enum has no case of that name, or another namespace"
        }
    }

    /// The routes the feature `name` lists among its screens that its coordinator does not know: a descriptor's
    /// route with no case of that name in the feature's Route enum, or one whose namespace is not the enum's. The
    /// daemon finds such a route only when a client first navigates there (`ViewModelFailed`); `navhost-plugin-tool
    /// check` asks before.
    ///
    /// Each route is asked for once with no parameters, by no session: a route whose parameters are required counts
    /// as known when its coordinator says which are missing, and a ViewModel built for one without parameters is
    /// dropped at once (it runs its initialiser, not `onAppear`; navigation it asks for is refused).
    ///
    /// - Parameter willAsk: Called with each route before its coordinator is asked for it: what a crash in the
    ///   plugin's code happened on.
    package func unknownRoutes(of name: String, willAsk: (_ route: String) -> Void = { _ in }) -> [UnknownRoute] {
        guard let entry = entry(named: name) else { return [] }
        let navigation = NoNavigation()
        return entry.screens.compactMap { screen in
            willAsk(screen.route)
            do {
                _ = try entry.coordinator.makeViewModel(
                    for: RouteRequest(id: screen.route),
                    navigation: navigation,
                    screen: ScreenID("route-check")
                )
            } catch RouteError.unknownRoute {
                return UnknownRoute(feature: name, route: screen.route)
            } catch {
                // Parameters that do not fit, or another failure: the route itself is one the coordinator knows.
            }
            return nil
        }
    }
}

extension FeatureCatalog {
    /// What `coordinator` throws when asked for a screen of `request`, by no session; `nil` when it builds one. The
    /// ViewModel built is dropped at once (it runs its initialiser, not `onAppear`; navigation it asks for is
    /// refused).
    package static func failure(of coordinator: any FeatureCoordinator, building request: RouteRequest) -> (any Error)?
    {
        do {
            _ = try coordinator.makeViewModel(for: request, navigation: NoNavigation(), screen: ScreenID("root-check"))
            return nil
        } catch {
            return error
        }
    }
}

/// The navigation of a ViewModel built only to see that its route is known: every command refused.
final class NoNavigation: NavigationHandler {
    func perform(_ command: NavigationCommand, from screen: ScreenID) -> Bool { false }
}
