/// How much of everything a run measures: the full run of `make bench`, or the smoke run of `make bench-smoke`,
/// which only shows that every measurement works.
struct BenchPlan {
    /// The floor's ping-pong count and pipelined total (its README's full run: 100,000 and 1,000,000).
    var floorRoundTrips: Int
    var floorPipelined: Int
    /// Round trips of the floor's second run, which measures its CPU time per round trip (``Floor/measureCPU``).
    var floorCPURoundTrips: Int
    /// Calls in flight per connection, for the floor and for NavHost.
    var depth = 64
    /// Timed round trips, after `warmUp` untimed ones.
    var roundTrips: Int
    var warmUp: Int
    /// Round trips of an intent that changes the screen's state each time (no target; for comparison).
    var changingRoundTrips: Int
    /// Pipelined calls on one connection, and per connection on 16.
    var pipelinedOneConnection: Int
    var pipelinedPerConnection: Int
    var pipelinedConnections = 16
    /// Clients at once for the concurrent round trips; each one's timed round trips of the steady intent and of the
    /// changing ones, after `concurrentWarmUp` untimed ones each.
    var concurrentConnections = 16
    var concurrentRoundTrips: Int
    var concurrentChangingRoundTrips: Int
    var concurrentWarmUp: Int
    /// The peers' counts (the Python one's and the Go one's), smaller than NavHost's (the Python peer is much slower):
    /// timed round trips after `peerWarmUp` untimed ones, state-changing round trips, concurrent round trips per
    /// client, and pipelined calls.
    var peerRoundTrips: Int
    var peerWarmUp: Int
    var peerChangingRoundTrips: Int
    var peerConcurrentRoundTrips: Int
    var peerConcurrentChangingRoundTrips: Int
    var peerPipelined: Int
    /// Watchers and timed state changes for each fan-out size.
    var fanOut: [(watchers: Int, rounds: Int)]
    var fanOutWarmUp: Int
    /// Timed daemon starts (after one untimed start); each also gives every plugin's load time.
    var starts: Int
    /// Hot reloads timed, and how long to wait for one.
    var reloads: Int
    var reloadLimitMilliseconds: Int
    /// Idle connections for the memory figure.
    var idleConnections = 1000
    /// How long the daemon is left alone before its RSS is read, in milliseconds.
    var settleMilliseconds: Int

    static let full = BenchPlan(
        floorRoundTrips: 100_000,
        floorPipelined: 1_000_000,
        floorCPURoundTrips: 20_000,
        roundTrips: 100_000,
        warmUp: 1000,
        changingRoundTrips: 20_000,
        pipelinedOneConnection: 200_000,
        pipelinedPerConnection: 20_000,
        concurrentRoundTrips: 5000,
        concurrentChangingRoundTrips: 1000,
        concurrentWarmUp: 50,
        peerRoundTrips: 10_000,
        peerWarmUp: 500,
        peerChangingRoundTrips: 2000,
        peerConcurrentRoundTrips: 500,
        peerConcurrentChangingRoundTrips: 100,
        peerPipelined: 20_000,
        fanOut: [(1, 1000), (100, 500), (1000, 200)],
        fanOutWarmUp: 10,
        starts: 10,
        reloads: 20,
        reloadLimitMilliseconds: 3000,
        settleMilliseconds: 1000
    )

    static let quick = BenchPlan(
        floorRoundTrips: 5000,
        floorPipelined: 50_000,
        floorCPURoundTrips: 1000,
        roundTrips: 2000,
        warmUp: 200,
        changingRoundTrips: 500,
        pipelinedOneConnection: 5000,
        pipelinedPerConnection: 500,
        concurrentRoundTrips: 100,
        concurrentChangingRoundTrips: 20,
        concurrentWarmUp: 5,
        peerRoundTrips: 300,
        peerWarmUp: 50,
        peerChangingRoundTrips: 100,
        peerConcurrentRoundTrips: 30,
        peerConcurrentChangingRoundTrips: 10,
        peerPipelined: 1000,
        fanOut: [(1, 20), (100, 10), (1000, 5)],
        fanOutWarmUp: 2,
        starts: 2,
        reloads: 3,
        reloadLimitMilliseconds: 1000,
        settleMilliseconds: 300
    )
}
