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
        #expect(
            NavHostClient.defaultSocketPath(environment: ["XDG_RUNTIME_DIR": "/run/user/1000/"], userID: 1000)
                == "/run/user/1000/navhost/io.navhost"
        )
        #expect(NavHostClient.defaultSocketPath(environment: [:], userID: 1000) == "/run/user/1000/navhost/io.navhost")
        #expect(
            NavHostClient.defaultSocketPath(environment: ["XDG_RUNTIME_DIR": "", "NAVHOST_SOCKET": ""], userID: 42)
                == "/run/user/42/navhost/io.navhost"
        )
    }
}
