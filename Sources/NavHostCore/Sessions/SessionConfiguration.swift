public import NavHostKit

/// How a session starts: its name and the route its stack is rooted at.
public struct SessionConfiguration: Sendable, Hashable {
    /// The name clients address the session by, like `main` or `kiosk-left`.
    public var name: String
    /// The route of the root screen.
    public var root: RouteRequest

    /// The name of the session clients get when they name none.
    public static let defaultName = "main"

    /// Whether `name` can name a session opened over the wire or in the configuration file: 1 to 64 letters, digits,
    /// `-`, `_` and `.`, not starting with `.`.
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, first != UInt8(ascii: "."), name.utf8.count <= 64 else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
    }

    public init(name: String = SessionConfiguration.defaultName, root: RouteRequest) {
        self.name = name
        self.root = root
    }
}
