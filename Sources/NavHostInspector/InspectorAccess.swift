// MARK: - InspectorAccess

/// Who may talk to the inspector: a request that shows the token, in its address (`?token=…`) or in the cookie the
/// inspector set after the first good token, and that a page of another origin did not send.
///
/// The decision is made from plain strings, so the same rules hold for page requests and websocket upgrades, and a
/// test checks them without a server.
public struct InspectorAccess: Sendable {
    /// What the inspector does with one request.
    public enum Decision: Sendable, Hashable {
        /// Answer it; `setCookie` when the token came in the address and the browser should remember it.
        case granted(setCookie: Bool)
        /// 401 Unauthorized: no token at all.
        case missingToken
        /// 403 Forbidden: a token that is not this inspector's.
        case wrongToken
        /// 403 Forbidden: sent by a page of another origin (a cross-site websocket or form).
        case foreignOrigin
        /// 403 Forbidden: sent to another name than the loopback address (`Host: evil.example:8123`): a page whose
        /// name was made to resolve to 127.0.0.1 (DNS rebinding) is its own origin, which the origin check lets by.
        case foreignHost
    }

    /// What of a request the decision looks at.
    public struct Request: Sendable, Hashable {
        /// The `token` query parameter, if any.
        public var queryToken: String?
        /// The value of the inspector's cookie, if the request carried it.
        public var cookieToken: String?
        /// The `Origin` header, if any: browsers send it with websocket upgrades and cross-origin requests.
        public var origin: String?
        /// The `Host` header, if any.
        public var host: String?

        /// Creates a request description.
        public init(queryToken: String? = nil, cookieToken: String? = nil, origin: String? = nil, host: String? = nil) {
            self.queryToken = queryToken
            self.cookieToken = cookieToken
            self.origin = origin
            self.host = host
        }

        /// Describes a request from its raw parts: the request target (`/ws?token=…`), its `Cookie` header, its
        /// `Origin` and its `Host`. The cookie read is the one ``InspectorAccess/cookieName(host:)`` names.
        public init(target: String, cookieHeader: String?, origin: String?, host: String?) {
            self.init(
                queryToken: Self.value(
                    named: "token",
                    in: target.split(separator: "?", maxSplits: 1).dropFirst().first,
                    separator: "&"
                ),
                cookieToken: Self.value(
                    named: InspectorAccess.cookieName(host: host),
                    in: cookieHeader?[...],
                    separator: ";"
                ),
                origin: origin,
                host: host
            )
        }

        /// The value of the first `name=value` among `pairs` split at `separator`, spaces around each pair ignored.
        private static func value(named name: String, in pairs: Substring?, separator: Character) -> String? {
            guard let pairs else { return nil }
            for pair in pairs.split(separator: separator) {
                let trimmed = pair.drop { $0 == " " }
                guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == name else { continue }
                return String(trimmed[trimmed.index(after: equals)...])
            }
            return nil
        }
    }

    // MARK: - Public Properties

    /// The token requests must show.
    public let token: InspectorToken

    // MARK: - Initialization

    /// Rules for `token`.
    public init(token: InspectorToken) {
        self.token = token
    }

    // MARK: - Public Functions

    /// Decides what to do with `request`.
    ///
    /// A `Host` header, when present, must name the loopback address, and an `Origin` header, when present, the
    /// address the request was sent to (`http://` and its `Host`): the inspector's own page. Then the token in the address wins over the cookie, so a new token replaces a stale
    /// cookie.
    public func decide(_ request: Request) -> Decision {
        if let host = request.host, !Self.namesLoopback(host) { return .foreignHost }
        if let origin = request.origin, origin != "http://\(request.host ?? "")" {
            return .foreignOrigin
        }
        if let queryToken = request.queryToken {
            return token.matches(queryToken) ? .granted(setCookie: true) : .wrongToken
        }
        if let cookieToken = request.cookieToken {
            return token.matches(cookieToken) ? .granted(setCookie: false) : .wrongToken
        }
        return .missingToken
    }

    /// Whether a `Host` header names the address the inspector listens on: `127.0.0.1` or `localhost`, with a port or
    /// not.
    static func namesLoopback(_ host: String) -> Bool {
        let name = host.lastIndex(of: ":").map { host[..<$0] } ?? host[...]
        return name == "127.0.0.1" || name.lowercased() == "localhost"
    }

    /// The cookie's name for the inspector a request was sent to (its `Host`, `127.0.0.1:8123`): cookies do not
    /// tell ports apart, so two inspectors on one machine each keep their own, `navhost-inspector-8123`.
    public static func cookieName(host: String?) -> String {
        guard let host, let colon = host.lastIndex(of: ":"), let port = Int(host[host.index(after: colon)...]) else {
            return "navhost-inspector"
        }
        return "navhost-inspector-\(port)"
    }
}
