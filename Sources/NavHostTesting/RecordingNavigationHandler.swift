public import NavHostKit

/// Stands in for the daemon's navigation stack in a ViewModel's unit test: records what each screen's `Router` asked
/// for, and lets it all happen.
///
/// ```swift
/// let handler = RecordingNavigationHandler()
/// let viewModel = try coordinator.makeViewModel(for: RouteRequest(id: "products.list"), navigation: handler,
///                                              screen: ScreenID("s1")) as? ProductsViewModel
/// await viewModel?.handle(.onTappedProduct(productID: "p4"))
/// #expect(handler.performed.map(\.command) == [.navigate(RouteRequest(id: "products.detail", …))])
/// ```
///
/// A `Router` holds its handler weakly: keep the handler in a variable for as long as the ViewModel navigates (one
/// made inline in the call is freed at once, and the Router then refuses every command).
///
/// - Since: NavHostKit 2.2.0.
@MainActor
public final class RecordingNavigationHandler: NavigationHandler {
    /// Every command asked for, oldest first, with the screen whose router asked.
    public private(set) var performed: [(command: NavigationCommand, screen: ScreenID)] = []

    public init() {}

    public func perform(_ command: NavigationCommand, from screen: ScreenID) -> Bool {
        performed.append((command, screen))
        return true
    }
}

/// The failure a test double throws when the test only needs *a* failure.
///
/// - Since: NavHostKit 2.2.0.
public enum TestError: Error, Equatable, Sendable {
    case unavailable
}
