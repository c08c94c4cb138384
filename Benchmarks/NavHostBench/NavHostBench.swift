import ArgumentParser
import Glibc

/// `navhost-bench`: NavHost's figures as ratios to the C floor, measured in one run on one machine.
@main
struct NavHostBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "navhost-bench",
        abstract: "Measures the real navhostd and the C floor in one run, and prints NavHost's figures as ratios.",
        discussion: """
            Builds ../shared/bench/floor.c with its own Makefile into a build folder and runs it; starts the navhostd
            built beside this program with the staged example plugins (NOTIFY_SOCKET set, timed to READY=1); then
            measures intent round trips (one client, and 16 at once), pipelined throughput, fan-out to watchers,
            start-up and plugin loads, hot reload and memory. Prints a table and writes the results as JSON. See
            BENCHMARKS.md.

            The peer phase runs a Python Varlink server on PyPI varlink (Benchmarks/Peer/navhost_peer.py, with the
            project's .venv Python) that serves the same Send to the same catalog with the same reply, and measures
            it with the same client: the round-trip and pipelined rows then also show NavHost's ratio to the peer.
            Without the Python (scripts/install-deps.sh makes .venv) the peer figures are skipped, with a note.
            The go-peer phase does the same with a Go Varlink server on github.com/varlink/go (Benchmarks/Peer/go,
            built by make go-peer as BUILD_DIR/navhost-peer-go): its figures and NavHost's ratio to them are printed
            beside the Python peer's, without a target.

            The client is a bare AF_UNIX socket that checks every reply with json-c, as the floor's client does.
            Nothing is pinned to a CPU except in the one-core pass, where the benchmark, the floor and a daemon of
            its own all run on CPU 0.

            Examples:
              navhost-bench                      the full run (make bench)
              navhost-bench --quick              a smoke run: small counts (make bench-smoke)
              navhost-bench --only round-trip --daemon-wrapper "valgrind --tool=callgrind"
            """
    )

    @Flag(help: "A smoke run with small counts: checks that every measurement works, not how fast.")
    var quick = false

    @Option(help: "Where to write the results as JSON.")
    var output = "bench-results.json"

    @Option(help: "Where to also write the table as Markdown (for BENCHMARKS.md).")
    var markdown: String?

    @Option(help: "The folder that holds floor.c and its Makefile.")
    var floorSource = "../shared/bench"

    @Option(help: "The folder that holds navhostd. (default: this program's folder)")
    var buildDir: String?

    @Option(help: "The staged plugin folder the daemon loads. (default: BUILD_DIR/plugins)")
    var plugins: String?

    @Option(help: "The Python that runs the peer, with the varlink package installed.")
    var peerPython = ".venv/bin/python"

    @Option(help: "The peer's script.")
    var peerScript = "Benchmarks/Peer/navhost_peer.py"

    @Option(help: "The Go peer's program. (default: BUILD_DIR/navhost-peer-go)")
    var goPeer: String?

    @Option(help: "Run only these phases (repeat): \(Phase.allCases.map(\.rawValue).joined(separator: ", ")).")
    var only: [Phase] = []

    @Option(
        help: """
            A command to start navhostd under, split at spaces, such as "valgrind --tool=callgrind". The daemon then \
            runs without a stall limit, and has ten minutes to stop.
            """
    )
    var daemonWrapper: String?

    @Option(help: "Timed round trips, instead of the plan's.")
    var roundTrips: Int?

    @Option(help: "Timed round trips that change the screen's state, instead of the plan's.")
    var changingRoundTrips: Int?

    @Option(help: "Pipelined calls on one connection, instead of the plan's (the 16 connections' count stays).")
    var pipelinedCalls: Int?

    @Option(help: "Timed state changes to 1,000 watchers, instead of the plan's (and no other fan-out size).")
    var fanOutChanges: Int?

    @Flag(help: "Skip the one-core pass.")
    var skipOneCore = false

    @Flag(
        help:
            "Keep the temporary folder (sockets, daemon logs, state; made in $TMPDIR, else /tmp) instead of removing it."
    )
    var keepWorkDirectory = false

    func run() throws {
        var plan = quick ? BenchPlan.quick : BenchPlan.full
        if let roundTrips { plan.roundTrips = roundTrips }
        if let changingRoundTrips { plan.changingRoundTrips = changingRoundTrips }
        if let pipelinedCalls { plan.pipelinedOneConnection = pipelinedCalls }
        if let fanOutChanges { plan.fanOut = [(1000, fanOutChanges)] }
        let buildDirectory = buildDir ?? Self.executableDirectory()
        var phases = Set(only.isEmpty ? Phase.allCases : only)
        if skipOneCore { phases.remove(.oneCore) }
        let run = try BenchRun(
            plan: plan,
            mode: quick ? "quick" : "full",
            phases: phases,
            buildDirectory: buildDirectory,
            pluginDirectory: plugins ?? "\(buildDirectory)/plugins",
            floorSource: floorSource,
            wrapper: daemonWrapper.map { $0.split(separator: " ").map(String.init) } ?? [],
            peerPython: peerPython,
            peerScript: peerScript,
            goPeerProgram: goPeer ?? "\(buildDirectory)/navhost-peer-go",
            keepWorkDirectory: keepWorkDirectory
        )
        try run.execute()
        let text = run.resultsDocument().prettyText()
        try writeFile(output, text)
        Console.line("Results written to \(output)")
        if let markdown {
            try writeFile(markdown, ResultTable.markdown(run.rows))
            Console.line("Markdown table written to \(markdown)")
        }
    }

    /// The folder of this program, where SwiftPM also put `navhostd`.
    private static func executableDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return "." }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
    }
}

/// The parts of a run, for `--only`.
enum Phase: String, CaseIterable, ExpressibleByArgument {
    case floor
    case peer
    case goPeer = "go-peer"
    case roundTrip = "round-trip"
    case pipelined
    case fanOut = "fan-out"
    case startup
    case reload
    case memory
    case oneCore = "one-core"
}

/// Writes `text` to `path`, replacing it.
func writeFile(_ path: String, _ text: String) throws {
    guard let file = fopen(path, "w") else { throw BenchError.system("fopen(\(path))") }
    defer { fclose(file) }
    let bytes = Array(text.utf8)
    guard fwrite(bytes, 1, bytes.count, file) == bytes.count else { throw BenchError.system("fwrite(\(path))") }
}
