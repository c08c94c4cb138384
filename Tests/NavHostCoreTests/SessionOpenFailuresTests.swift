import NavHostCore
import Testing

/// How often a session that cannot open is logged.
@Suite("SessionOpenFailures: a failure logged once per reason")
struct SessionOpenFailuresTests {
    @Test("The same reason is news once; another reason, or after forgetting, is news again")
    func oncePerReason() {
        var failures = SessionOpenFailures()
        #expect(failures.isNew("lobby", because: "RouteNotFound"))
        #expect(!failures.isNew("lobby", because: "RouteNotFound"))
        #expect(failures.isNew("kiosk", because: "RouteNotFound"), "each session on its own")
        #expect(failures.isNew("lobby", because: "InvalidRouteParameters"))
        failures.forget("lobby")
        #expect(failures.isNew("lobby", because: "InvalidRouteParameters"))
        failures.forgetAll()
        #expect(failures.isNew("kiosk", because: "RouteNotFound"))
    }
}
