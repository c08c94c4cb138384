import NavHostKit
package import NavHostStorage

// Asking, before a build serves, what it would make of the screens sessions saved: a restart or a reload builds each
// again from its route and hands it its restorable state.

extension FeatureCatalog {
    /// What the catalog would make of a saved screen, built again as a restart or a reload builds it.
    package enum SavedScreenFate {
        /// It comes back as it was: its route, its parameters and its restorable state taken.
        case asItWas
        /// It comes back on its route, without its restorable state, which its ViewModel refused (``reason``): it
        /// no longer decodes, or the ViewModel keeps none now.
        case startsFresh(reason: any Error)
        /// It cannot come back (its route is gone or refuses its parameters): it is dropped, with the screens above it.
        case cannotShow(reason: any Error)
    }

    /// What the catalog makes of `screen`, saved by a session, when it builds it again: its ViewModel is built for its
    /// route and parameters, by no session, and handed its restorable state, then dropped (its initialiser and
    /// `restore(from:)` run, not `onAppear`; navigation it asks for is refused). `navhost-plugin-tool check --sessions`
    /// asks it of every saved screen a new build would serve.
    package func fate(of screen: SessionRecord.Screen) -> SavedScreenFate {
        let viewModel: any ViewModel
        do throws(NavigationError) {
            viewModel = try makeViewModel(
                for: RouteRequest(id: screen.route, parameters: screen.parameters),
                navigation: NoNavigation(),
                screen: screen.id
            )
        } catch {
            return .cannotShow(reason: error)
        }
        guard let saved = screen.restorable else { return .asItWas }
        do {
            try ScreenModel.of(viewModel).restoreState(saved)
            return .asItWas
        } catch {
            return .startsFresh(reason: error)
        }
    }
}
