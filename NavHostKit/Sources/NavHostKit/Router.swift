/// A change to a navigation stack, as a ``Router`` asks for it.
public enum NavigationCommand: Sendable, Hashable {
    /// Push a screen on top of the stack.
    case navigate(RouteRequest)
    /// Pop the top screen.
    case pop
    /// Pop every screen above the root.
    case popToRoot
    /// Pop down to the topmost screen showing this route.
    case popTo(RouteRequest)
    /// Replace the whole stack, root included, in one change (a deep link).
    case replace([RouteRequest])
    /// Show a screen in the modal layer, above the stack.
    case present(RouteRequest)
    /// Close the top modal screen.
    case dismiss
}

/// What a ``Router`` hands its commands to: the daemon's core, or a test double.
@MainActor
public protocol NavigationHandler: AnyObject {
    /// Carries out `command` for the screen that owns the router.
    ///
    /// - Returns: Whether the command changed the stack; `false` when it was refused (unknown route, nothing to pop,
    ///   a pop of a screen the asking one did not open, or the screen that asked is no longer on the stack). The
    ///   handler logs why; the daemon also fails the intent that asked (`IntentFailed`, with `refusedNavigation`).
    @discardableResult
    func perform(_ command: NavigationCommand, from screen: ScreenID) -> Bool
}

/// Identifies one screen of a session's stack for as long as it lives.
public struct ScreenID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The ID's text form, unique within its session, like `s7`.
    public var rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// The navigation handle a ViewModel receives through its `init`, as in the seeds' MVVM+C pattern.
///
/// ViewModels navigate through the router, never by themselves:
///
/// ```swift
/// func onTappedProduct(_ product: Product) {
///     router.navigate(to: .detail(productID: product.id))
/// }
/// ```
///
/// Commands from a screen that has already been popped (or rebuilt by a reload) are ignored and return `false`, so a
/// late use case cannot move the stack, whatever task it runs in. A command the daemon refuses fails the intent that
/// gave it: the front end is answered `IntentFailed`, with `refusedNavigation` naming why
/// (docs/authoring-features.md, section 3).
/// A `Router()` made without a handler records its commands in ``commands``, for previews and unit tests.
@MainActor
public final class Router<R: Route> {
    // MARK: Private Properties

    private weak var handler: (any NavigationHandler)?
    private let screen: ScreenID
    /// Made without a handler: commands are recorded and succeed. A router whose handler is gone (its screen, or its
    /// session, no longer exists) refuses them instead.
    private let isDetached: Bool

    // MARK: Public Properties

    /// The commands a router without a handler has received, oldest first.
    public private(set) var commands: [NavigationCommand] = []

    // MARK: Initialization

    /// Creates a router that hands its commands to `handler` on behalf of `screen`.
    public init(handler: any NavigationHandler, screen: ScreenID) {
        self.handler = handler
        self.screen = screen
        self.isDetached = false
    }

    /// Creates a detached router that only records its commands.
    public init() {
        self.handler = nil
        self.screen = ScreenID("detached")
        self.isDetached = true
    }

    // MARK: Public Functions

    /// Pushes `route` on top of the stack.
    @discardableResult
    public func navigate(to route: R) -> Bool { send(route) { .navigate($0) } }

    /// Pushes a route of any feature, addressed by ID.
    @discardableResult
    public func navigate(to request: RouteRequest) -> Bool { perform(.navigate(request)) }

    /// Pops the top screen.
    @discardableResult
    public func pop() -> Bool { perform(.pop) }

    /// Pops every screen above the root.
    @discardableResult
    public func popToRoot() -> Bool { perform(.popToRoot) }

    /// Pops down to the topmost screen showing `route`.
    @discardableResult
    public func popTo(_ route: R) -> Bool { send(route) { .popTo($0) } }

    /// Replaces the whole stack with `routes`, root first, as one change.
    @discardableResult
    public func replace(with routes: [R]) -> Bool {
        guard let requests = try? routes.map({ try RouteRequest($0) }) else { return false }
        return perform(.replace(requests))
    }

    /// Replaces the whole stack with routes of any feature, root first, as one change.
    @discardableResult
    public func replace(with requests: [RouteRequest]) -> Bool { perform(.replace(requests)) }

    /// Shows `route` in the modal layer.
    @discardableResult
    public func present(_ route: R) -> Bool { send(route) { .present($0) } }

    /// Shows a route of any feature in the modal layer.
    @discardableResult
    public func present(_ request: RouteRequest) -> Bool { perform(.present(request)) }

    /// Closes the top modal screen.
    @discardableResult
    public func dismiss() -> Bool { perform(.dismiss) }
}

// MARK: - Private Functions

extension Router {
    private func send(_ route: R, _ command: (RouteRequest) -> NavigationCommand) -> Bool {
        guard let request = try? RouteRequest(route) else { return false }
        return perform(command(request))
    }

    private func perform(_ command: NavigationCommand) -> Bool {
        guard let handler else {
            guard isDetached else { return false }
            commands.append(command)
            return true
        }
        return handler.perform(command, from: screen)
    }
}
