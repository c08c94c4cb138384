import NavHostClient
import Testing

/// Where a client looks for the daemon when it is not told.
@Suite("Default socket path")
struct SocketPathTests {
    @Test("NAVHOST_SOCKET wins for anyone")
    func environmentOverride() {
        let environment = ["NAVHOST_SOCKET": "/tmp/nav.sock", "XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(NavHostClient.defaultSocketPath(environment: environment, userID: 0) == "/tmp/nav.sock")
        #expect(NavHostClient.defaultSocketPath(environment: environment, userID: 1000) == "/tmp/nav.sock")
    }

    @Test("Root uses the system daemon's socket")
    func root() {
        let environment = ["XDG_RUNTIME_DIR": "/run/user/0"]
        #expect(NavHostClient.defaultSocketPath(environment: environment, userID: 0) == "/run/navhost/io.navhost")
    }

    @Test("Anyone else uses XDG_RUNTIME_DIR, or /run/user/UID without it, as navhostd does")
    func user() {
        func path(_ environment: [String: String], _ userID: UInt32) -> String {
            NavHostClient.defaultSocketPath(environment: environment, userID: userID, isSocket: { _ in false })
        }
        #expect(
            path(["XDG_RUNTIME_DIR": "/run/user/1000/"], 1000)
                == "/run/user/1000/navhost/io.navhost"
        )
        #expect(path([:], 1000) == "/run/user/1000/navhost/io.navhost")
        #expect(
            path(["XDG_RUNTIME_DIR": "", "NAVHOST_SOCKET": ""], 42)
                == "/run/user/42/navhost/io.navhost"
        )
    }

    @Test(
        "Without a socket of the user's own, the system daemon's when it listens: an operator reaches it without options"
    )
    func fallsBackToTheSystemDaemon() {
        let own = "/run/user/1000/navhost/io.navhost"
        let environment = ["XDG_RUNTIME_DIR": "/run/user/1000"]
        func path(sockets: Set<String>) -> String {
            NavHostClient.defaultSocketPath(environment: environment, userID: 1000, isSocket: sockets.contains)
        }
        #expect(path(sockets: [NavHostClient.systemSocketPath]) == NavHostClient.systemSocketPath)
        #expect(path(sockets: [own, NavHostClient.systemSocketPath]) == own)
        #expect(path(sockets: [own]) == own)
        // Neither: the user's own, which the error names.
        #expect(path(sockets: []) == own)
        // NAVHOST_SOCKET still wins.
        #expect(
            NavHostClient.defaultSocketPath(
                environment: ["NAVHOST_SOCKET": "/tmp/nav.sock"],
                userID: 1000,
                isSocket: { _ in true }
            ) == "/tmp/nav.sock"
        )
    }
}
