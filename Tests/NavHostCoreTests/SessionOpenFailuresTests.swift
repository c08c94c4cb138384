import NavHostCore
import Testing

/// How often a session that cannot open is logged.
@Suite("SessionOpenFailures: a failure logged once per reason")
struct SessionOpenFailuresTests {
    @Test("The same reason is news once; another reason, or after forgetting, is news again")
    func oncePerReason() {
        var failures = SessionOpenFailures()
        var news: [Bool] = []
        news.append(failures.isNew("lobby", because: "RouteNotFound"))
        news.append(failures.isNew("lobby", because: "RouteNotFound"))
        news.append(failures.isNew("kiosk", because: "RouteNotFound"))  // each session on its own
        news.append(failures.isNew("lobby", because: "InvalidRouteParameters"))
        failures.forget("lobby")
        news.append(failures.isNew("lobby", because: "InvalidRouteParameters"))
        failures.forgetAll()
        news.append(failures.isNew("kiosk", because: "RouteNotFound"))
        #expect(news == [true, false, true, true, true, true])
    }
}
