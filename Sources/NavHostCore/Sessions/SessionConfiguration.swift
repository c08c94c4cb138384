public import NavHostKit

/// How a session starts: its name and the route its stack is rooted at.
public struct SessionConfiguration: Sendable, Hashable {
    /// The name clients address the session by, like `main` or `kiosk-left`.
    public var name: String
    /// The route of the root screen.
    public var root: RouteRequest

    /// The name of the session clients get when they name none.
    public static let defaultName = "main"

    public init(name: String = SessionConfiguration.defaultName, root: RouteRequest) {
        self.name = name
        self.root = root
    }
}
