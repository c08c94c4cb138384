import NavHostInspector
import Testing

/// The token: how it is made, and how a request's token is checked.
@Suite("The inspector's token")
struct InspectorTokenTests {
    @Test("A fresh token is 32 lowercase hexadecimal digits, and two fresh tokens differ")
    func freshTokens() {
        let first = InspectorToken()
        let second = InspectorToken()
        #expect(first.value.count == 32)
        #expect(first.value.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(first != second)
    }

    @Test("A token matches itself only: not a prefix, not a longer text, not one differing in one digit")
    func matching() {
        var generator = CountingGenerator()
        let token = InspectorToken(randomBytesFrom: &generator)
        #expect(token.matches(token.value))
        #expect(token.matches(Substring(token.value)))
        #expect(!token.matches(""))
        #expect(!token.matches(token.value.dropLast()))
        #expect(!token.matches(token.value + "0"))
        #expect(!token.matches(token.value.uppercased()) || token.value == token.value.uppercased())
        for index in [0, 15, 31] {
            var digits = Array(token.value)
            digits[index] = digits[index] == "0" ? "1" : "0"
            #expect(!token.matches(String(digits)), "differs at \(index)")
        }
    }

    @Test("The same random bytes give the same token")
    func deterministic() {
        var one = CountingGenerator()
        var two = CountingGenerator()
        #expect(InspectorToken(randomBytesFrom: &one) == InspectorToken(randomBytesFrom: &two))
    }
}

/// The access rules, on plain request descriptions.
@Suite("Who the inspector answers")
struct InspectorAccessTests {
    let access = InspectorAccess(token: InspectorToken())
    var token: String { access.token.value }

    @Test("The token in the address admits the request and asks for the cookie; the cookie alone admits it too")
    func granted() {
        #expect(access.decide(.init(queryToken: token, host: "127.0.0.1:8123")) == .granted(setCookie: true))
        #expect(access.decide(.init(cookieToken: token, host: "127.0.0.1:8123")) == .granted(setCookie: false))
        #expect(
            access.decide(.init(cookieToken: token, origin: "http://127.0.0.1:8123", host: "127.0.0.1:8123"))
                == .granted(setCookie: false)
        )
    }

    @Test("No token is 401 (missing); a wrong one is 403, in the address or in the cookie")
    func refused() {
        #expect(access.decide(.init(host: "127.0.0.1:8123")) == .missingToken)
        let wrong = String(repeating: "a", count: 32)
        #expect(access.decide(.init(queryToken: wrong)) == .wrongToken)
        #expect(access.decide(.init(cookieToken: wrong)) == .wrongToken)
        // A wrong token in the address is not rescued by a good cookie: the address wins.
        #expect(access.decide(.init(queryToken: wrong, cookieToken: token)) == .wrongToken)
    }

    @Test("A request from a page of another origin is refused even with the token")
    func foreignOrigin() {
        for origin in ["http://127.0.0.1:9999", "http://evil.example", "null", "https://127.0.0.1:8123"] {
            let request = InspectorAccess.Request(cookieToken: token, origin: origin, host: "127.0.0.1:8123")
            #expect(access.decide(request) == .foreignOrigin, "\(origin)")
        }
    }

    @Test("A request sent to another name than the loopback address is refused even with the token (DNS rebinding)")
    func foreignHost() {
        for host in ["evil.example:8123", "evil.example", "127.0.0.1.evil.example:8123", "10.0.0.1:8123"] {
            let request = InspectorAccess.Request(cookieToken: token, origin: "http://\(host)", host: host)
            #expect(access.decide(request) == .foreignHost, "\(host)")
        }
        for host in ["127.0.0.1:8123", "localhost:8123", "LOCALHOST:8123", "127.0.0.1"] {
            let request = InspectorAccess.Request(cookieToken: token, origin: "http://\(host)", host: host)
            #expect(access.decide(request) == .granted(setCookie: false), "\(host)")
        }
    }

    @Test("A raw request's token is read from its query, and its cookie from the one named for its port")
    func rawRequests() {
        let request = InspectorAccess.Request(
            target: "/ws?x=1&token=\(token)",
            cookieHeader: "other=1; navhost-inspector-8123=\(token)",
            origin: nil,
            host: "127.0.0.1:8123"
        )
        #expect(request.queryToken == token)
        #expect(request.cookieToken == token)
        let otherPort = InspectorAccess.Request(
            target: "/",
            cookieHeader: "navhost-inspector-9999=\(token)",
            origin: nil,
            host: "127.0.0.1:8123"
        )
        #expect(otherPort.queryToken == nil)
        #expect(otherPort.cookieToken == nil)
        #expect(access.decide(otherPort) == .missingToken)
    }

    @Test("The cookie is named by the port the request went to")
    func cookieName() {
        #expect(InspectorAccess.cookieName(host: "127.0.0.1:8123") == "navhost-inspector-8123")
        #expect(InspectorAccess.cookieName(host: "localhost:80") == "navhost-inspector-80")
        #expect(InspectorAccess.cookieName(host: nil) == "navhost-inspector")
    }
}

/// A generator whose bytes count up: a known token for tests.
private struct CountingGenerator: RandomNumberGenerator {
    var state: UInt64 = 0

    mutating func next() -> UInt64 {
        state &+= 0x0101_0101_0101_0101
        return state
    }
}
