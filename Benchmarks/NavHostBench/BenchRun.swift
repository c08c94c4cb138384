import Glibc

/// One run of the benchmark: runs the phases in order, collects the table's rows and the details for the JSON file.
final class BenchRun {
    let plan: BenchPlan
    let mode: String
    let phases: Set<Phase>
    let floorSource: String
    let floorBuildDirectory: String
    /// How the Python peer is started; its interpreter and script are checked when the peer phase runs.
    let peerLaunch: PeerProcess.Launch
    /// How the Go peer is started; its program is checked when the go-peer phase runs.
    let goPeerLaunch: PeerProcess.Launch
    let workDirectory: String
    let keepWorkDirectory: Bool
    let machine: MachineInfo
    let startedAt: String
    private(set) var launch: DaemonProcess.Launch

    /// The table, in the order it is printed.
    private(set) var rows: [ResultRow] = []
    /// Every figure with its counts, for the JSON file.
    private var details: [(String, ReportValue)] = []
    private var floor: Floor.Result?
    private var floorCPU: Floor.CPUResult?
    private var floorBinary: String?
    private var peer: Peer.Figures?
    private var goPeer: Peer.Figures?

    /// The sessions every daemon opens: `rt` serves round trips and pipelining, `fan` the watchers, `hot` the watcher
    /// of a screen whose plugin is reloaded.
    static let sessions = ["main=home.main", "rt=products.list", "fan=products.list", "hot=settings.main"]
    /// The intent timed in round trips: it filters the catalog with a text that matches no product, so the screen's
    /// state is the same after every call (no event, nothing to save) and the reply stays small.
    static let steadyIntent = VarlinkMessage.send(
        session: "rt",
        intent: "onChangedFilter",
        arguments: #"{"text":"bench"}"#
    )
    /// Two intents that change the screen's state back and forth: each call produces a `stateChanged` event.
    ///
    /// - Parameter suffix: Ends both filter texts: clients that share the session each alternate texts of their own,
    ///   so every call changes the state whatever the others sent just before.
    static func changingIntents(session: String, suffix: String = "") -> ([UInt8], [UInt8]) {
        (
            VarlinkMessage.send(
                session: session,
                intent: "onChangedFilter",
                arguments: #"{"text":"bench-a\#(suffix)"}"#
            ),
            VarlinkMessage.send(
                session: session,
                intent: "onChangedFilter",
                arguments: #"{"text":"bench-b\#(suffix)"}"#
            )
        )
    }
    /// The steady intent for each of `clients` clients at once (see ``ConcurrentRoundTrips``).
    static func concurrentSteadyIntents(clients: Int) -> [([UInt8], [UInt8])] {
        Array(repeating: (steadyIntent, steadyIntent), count: clients)
    }
    /// Intents that change the state of `session`'s screen, for each of `clients` clients at once: texts of its own
    /// for each client (`bench-a-3`, `bench-b-3`).
    static func concurrentChangingIntents(session: String, clients: Int) -> [([UInt8], [UInt8])] {
        (0..<clients).map { changingIntents(session: session, suffix: "-\($0)") }
    }

    init(
        plan: BenchPlan,
        mode: String,
        phases: Set<Phase>,
        buildDirectory: String,
        pluginDirectory: String,
        floorSource: String,
        wrapper: [String],
        peerPython: String,
        peerScript: String,
        goPeerProgram: String,
        keepWorkDirectory: Bool
    ) throws {
        self.plan = plan
        self.mode = mode
        self.phases = phases
        self.floorSource = floorSource
        self.floorBuildDirectory = "\(buildDirectory)/bench-floor"
        self.keepWorkDirectory = keepWorkDirectory
        let executable = "\(buildDirectory)/navhostd"
        guard access(executable, X_OK) == 0 else { throw BenchError("no navhostd in \(buildDirectory)") }
        guard access(pluginDirectory, R_OK) == 0 else {
            throw BenchError("no staged plugins in \(pluginDirectory) (pass --plugins)")
        }
        // The daemons' sockets and state folders live here: TMPDIR on a tmpfs takes the disk out of durable writes.
        let temporary = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(temporary)/navhost-bench.XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw BenchError.system("mkdtemp") }
        workDirectory = string(fromCString: template)
        launch = DaemonProcess.Launch(
            executable: executable,
            plugins: pluginDirectory,
            sessions: Self.sessions,
            workDirectory: workDirectory,
            wrapper: wrapper,
            readyTimeoutMilliseconds: wrapper.isEmpty ? 60_000 : 600_000,
            // valgrind slows the daemon's shutdown, 1,000 watchers' connections closing, far past 10 s on a loaded
            // machine, and a profile is written only if it is allowed to finish.
            stopGraceMilliseconds: wrapper.isEmpty ? 10_000 : 600_000
        )
        // The catalog the daemon's Products plugin reads, when it is staged.
        let catalog = "\(pluginDirectory)/Products/products.json"
        peerLaunch = PeerProcess.Launch(
            name: "Python peer",
            command: [peerPython, peerScript],
            catalog: access(catalog, R_OK) == 0 ? catalog : nil,
            sessions: ["rt=products.list"],
            workDirectory: workDirectory
        )
        goPeerLaunch = PeerProcess.Launch(
            name: "Go peer",
            command: [goPeerProgram],
            catalog: peerLaunch.catalog,
            sessions: peerLaunch.sessions,
            workDirectory: workDirectory
        )
        machine = MachineInfo.current()
        startedAt = Self.utcNow()
    }

    deinit {
        if keepWorkDirectory {
            Console.line("Work folder kept: \(workDirectory)")
        } else {
            _ = try? Subprocess.run(["rm", "-rf", workDirectory])
        }
    }

    // MARK: - Running

    func execute() throws {
        Console.line("navhost-bench (\(mode)) on \(machine.cpuModel), \(machine.onlineCPUs) CPUs, \(machine.kernel)")
        Console.line("\(machine.swiftVersion); load average \(machine.loadAtStart); \(machine.idlePolling)")
        raiseDescriptorLimit()
        if phases.contains(.floor) { try measureFloor() }
        if phases.contains(.peer) {
            peer = try measurePeer(
                peerLaunch,
                key: "peer",
                needs: [(peerLaunch.command[0], X_OK, "Python"), (peerLaunch.command[1], R_OK, "peer script")],
                remedy: "scripts/install-deps.sh makes .venv; see --peer-python, --peer-script"
            )
        }
        if phases.contains(.goPeer) {
            goPeer = try measurePeer(
                goPeerLaunch,
                key: "goPeer",
                needs: [(goPeerLaunch.command[0], X_OK, "Go peer program")],
                remedy: "make go-peer builds it; see --go-peer"
            )
        }
        if !phases.isDisjoint(with: [.roundTrip, .pipelined, .fanOut]) {
            try measureUnderLoad()
        } else if peer != nil || goPeer != nil {
            Console.line("Peers not checked against navhostd: no round-trip, pipelined or fan-out phase started one")
            details.append(("peersAnswerTheProbesAsNavhostd", .string("not checked: no daemon phase")))
        }
        if phases.contains(.startup) { try measureStartUp() }
        if phases.contains(.reload) { try measureHotReload() }
        if phases.contains(.memory) { try measureMemory() }
        if phases.contains(.oneCore) { try measureOneCore() }
        Console.line("")
        Console.line(ResultTable.render(rows))
        let counts = ResultRow.Status.allCounted.map { status in
            "\(rows.reduce(0) { $0 + $1.count(status) }) \(status.rawValue)"
        }
        Console.line("Targets: \(counts.joined(separator: ", ")). Load average now \(MachineInfo.currentLoad()).")
    }

    /// The results file: machine, plan, floor, every figure, and the table with ratios and target status.
    func resultsDocument() -> ReportValue {
        .object([
            ("benchmark", .string("navhost-bench")),
            ("mode", .string(mode)),
            ("startedAt", .string(startedAt)),
            ("finishedAt", .string(Self.utcNow())),
            ("machine", machine.report),
            ("loadAverageAtEnd", .string(MachineInfo.currentLoad())),
            (
                "client",
                .string(
                    "one thread, bare AF_UNIX stream sockets (epoll for many), NUL framing, every reply parsed with "
                        + "json-c: the same work per reply as floor.c's client"
                )
            ),
            ("floorCommand", .string("make -f \(floorSource)/Makefile floor; floor N P 64")),
            ("peerCommand", .string("\(peerLaunch.command.joined(separator: " ")) unix:SOCKET --state-dir DIR ...")),
            (
                "goPeerCommand",
                .string("\(goPeerLaunch.command.joined(separator: " ")) unix:SOCKET --state-dir DIR ...")
            ),
            ("details", .object(details)),
            ("rows", .array(rows.map(\.report))),
            (
                "targets",
                .object(
                    ResultRow.Status.allCounted.map { status in
                        (status.rawValue, .integer(rows.reduce(0) { $0 + $1.count(status) }))
                    }
                )
            ),
        ])
    }

    // MARK: - Phases

    private func measureFloor() throws {
        Console.line("Building the floor from \(floorSource) into \(floorBuildDirectory)")
        let binary = try Floor.build(sourceDirectory: floorSource, buildDirectory: floorBuildDirectory)
        floorBinary = binary
        Console.line(
            "Floor: \(plan.floorRoundTrips) round trips, \(plan.floorPipelined) pipelined, depth \(plan.depth)"
        )
        let result = try Floor.run(
            binary: binary,
            roundTrips: plan.floorRoundTrips,
            pipelined: plan.floorPipelined,
            depth: plan.depth
        )
        Console.line(result.output)
        floor = result
        let cpu = try Floor.measureCPU(binary: binary, roundTrips: plan.floorCPURoundTrips)
        Console.line(
            "Floor CPU: \(cpu.bothEndsMicroseconds.fixed(1)) µs per round trip for both processes "
                + "(\(cpu.oneEndMicroseconds.fixed(1)) µs an end) over \(cpu.roundTrips) round trips"
        )
        floorCPU = cpu
        details.append(("floor", Self.report(result)))
        details.append(
            (
                "floorCPU",
                .object([
                    ("roundTrips", .integer(cpu.roundTrips)),
                    ("bothProcessesMicrosecondsPerRoundTrip", .rounded(cpu.bothEndsMicroseconds, 2)),
                    ("oneEndMicrosecondsPerRoundTrip", .rounded(cpu.oneEndMicroseconds, 2)),
                ])
            )
        )
    }

    /// A peer (Python or Go): the intents of the round-trip and pipelined rows, sent by the same client code (see
    /// ``Peer``). Skipped, with a note, when a file it needs is missing.
    ///
    /// - Parameters:
    ///   - key: Names its figures in the results file.
    ///   - needs: The files it needs, with the `access` mode each needs and what each is, for the note.
    ///   - remedy: How to get them, for the note.
    private func measurePeer(
        _ launch: PeerProcess.Launch,
        key: String,
        needs: [(path: String, mode: Int32, what: String)],
        remedy: String
    ) throws -> Peer.Figures? {
        if let missing = needs.first(where: { access($0.path, $0.mode) != 0 }) {
            Console.line("\(launch.name) skipped: no \(missing.what) at \(missing.path) (\(remedy))")
            details.append((key, .object([("skipped", .string("no \(missing.what) at \(missing.path)"))])))
            return nil
        }
        let process = try PeerProcess(launch, name: key)
        defer { process.stop() }
        Console.line(
            "\(launch.name): \(process.banner), accepting after \((Double(process.startNanoseconds) / 1e6).fixed(0)) ms; "
                + "\(plan.peerRoundTrips) round trips, \(plan.peerChangingRoundTrips) changing, "
                + "\(plan.concurrentConnections) clients × \(plan.peerConcurrentRoundTrips) "
                + "(\(plan.peerConcurrentChangingRoundTrips) changing), \(plan.peerPipelined) pipelined"
        )
        let figures = try Peer.measure(pid: process.pid, socketPath: process.socketPath, plan: plan)
        let p50s = [figures.steady, figures.changing, figures.steadyConcurrent, figures.changingConcurrent].map {
            $0.microseconds(at: 50).fixed(1)
        }
        Console.line(
            "  p50 \(p50s[0]) µs, changing \(p50s[1]) µs; \(plan.concurrentConnections) clients p50 \(p50s[2]) µs, "
                + "changing \(p50s[3]) µs; pipelined \(figures.pipelined.requestsPerSecond.fixed(0)) req/s"
        )
        details.append(
            (
                key,
                .object([
                    ("server", .string(process.banner)),
                    ("command", .string(process.command.joined(separator: " "))),
                    ("roundTrip", Self.report(figures.steady, unit: "µs")),
                    ("roundTripCPUMicroseconds", .rounded(figures.steadyCPUMicroseconds, 2)),
                    ("roundTripChangingState", Self.report(figures.changing, unit: "µs")),
                    ("concurrentConnections", .integer(plan.concurrentConnections)),
                    ("concurrentRoundTrip", Self.report(figures.steadyConcurrent, unit: "µs")),
                    ("concurrentRoundTripChangingState", Self.report(figures.changingConcurrent, unit: "µs")),
                    (
                        "pipelined1",
                        .object([
                            ("depth", .integer(plan.depth)),
                            ("calls", .integer(figures.pipelined.calls)),
                            ("seconds", .rounded(figures.pipelined.seconds, 4)),
                            ("requestsPerSecond", .rounded(figures.pipelined.requestsPerSecond, 0)),
                        ])
                    ),
                ])
            )
        )
        return figures
    }

    /// Round trips, pipelining and fan-out, against one daemon.
    private func measureUnderLoad() throws {
        let daemon = try DaemonProcess(launch, name: "load")
        defer { daemon.stop() }
        try requirePeersAgree(with: daemon)
        if phases.contains(.roundTrip) { try measureRoundTrips(daemon) }
        if phases.contains(.pipelined) { try measurePipelined(daemon) }
        if phases.contains(.fanOut) { try measureFanOut(daemon) }
    }

    private func measureRoundTrips(_ daemon: DaemonProcess) throws {
        Console.line("Round trips: \(plan.roundTrips) Send calls, one at a time (after \(plan.warmUp) untimed)")
        let before = try daemon.usage()
        let steady = try RoundTrip.measure(
            socketPath: daemon.socketPath,
            request: Self.steadyIntent,
            calls: plan.roundTrips,
            warmUp: plan.warmUp
        )
        let usage = try daemon.usage().perOperation(since: before, count: plan.roundTrips + plan.warmUp)
        Console.line(
            "  p50 \(steady.microseconds(at: 50).fixed(1)) µs, p99 \(steady.microseconds(at: 99).fixed(1)) µs; "
                + "daemon CPU \(usage.cpuMicroseconds.fixed(1)) µs and \(usage.switches.fixed(2)) context switches per call"
        )
        details.append(("roundTrip", Self.report(steady, unit: "µs")))
        details.append(("roundTripDaemonCPUMicroseconds", .rounded(usage.cpuMicroseconds, 2)))
        details.append(("roundTripDaemonContextSwitches", .rounded(usage.switches, 3)))
        rows.append(
            ResultRow(
                key: "roundTrip.p50",
                label: "intent round trip p50",
                unit: "µs",
                value: steady.microseconds(at: 50),
                floor: floor?.median,
                target: .ratioAtMost(2),
                peer: peer?.steady.microseconds(at: 50),
                peerTarget: peerTarget(.fasterBy(3)),
                goPeer: goPeer?.steady.microseconds(at: 50)
            )
        )
        rows.append(
            ResultRow(
                key: "roundTrip.p99",
                label: "intent round trip p99",
                unit: "µs",
                value: steady.microseconds(at: 99),
                floor: floor?.p99,
                target: .ratioAtMost(4),
                peer: peer?.steady.microseconds(at: 99),
                goPeer: goPeer?.steady.microseconds(at: 99)
            )
        )
        rows.append(
            ResultRow(
                key: "roundTrip.p99.9",
                label: "intent round trip p99.9",
                unit: "µs",
                value: steady.microseconds(at: 99.9),
                floor: floor?.p999
            )
        )
        rows.append(
            ResultRow(
                key: "roundTrip.daemonCPU",
                label: "daemon CPU time per round trip",
                unit: "µs",
                value: usage.cpuMicroseconds,
                floor: floorCPU?.oneEndMicroseconds,
                target: .valueAtMost(40),
                peer: peer?.steadyCPUMicroseconds,
                goPeer: goPeer?.steadyCPUMicroseconds,
                note: "utime + stime of the daemon over the calls: hardly depends on the machine's load; the floor's "
                    + "figure is half the CPU of floor.c's two processes per round trip (one end), the peer's its "
                    + "process's over its steady calls"
            )
        )
        rows.append(
            ResultRow(
                key: "roundTrip.contextSwitches",
                label: "daemon context switches per round trip",
                unit: "",
                value: usage.switches,
                target: .valueAtMost(1.2),
                note: "summed over the daemon's threads; each is a thread going to sleep or being preempted"
            )
        )

        Console.line("Round trips that change the screen's state: \(plan.changingRoundTrips)")
        let changing = try RoundTrip.measure(
            socketPath: daemon.socketPath,
            alternating: Self.changingIntents(session: "rt"),
            calls: plan.changingRoundTrips,
            warmUp: plan.warmUp
        )
        // Leave the screen as the steady intent expects it.
        try RoundTrip.once(socketPath: daemon.socketPath, request: Self.steadyIntent)
        details.append(("roundTripChangingState", Self.report(changing, unit: "µs")))
        rows.append(
            ResultRow(
                key: "roundTripChangingState.p50",
                label: "round trip, state changes each call, p50",
                unit: "µs",
                value: changing.microseconds(at: 50),
                floor: floor?.median,
                target: .ratioAtMost(2),
                peer: peer?.changing.microseconds(at: 50),
                peerTarget: peerTarget(.fasterBy(3)),
                goPeer: goPeer?.changing.microseconds(at: 50),
                note: "each call produces a stateChanged event (no watcher) and a durable save of the filter"
            )
        )
        rows.append(
            ResultRow(
                key: "roundTripChangingState.p99",
                label: "round trip, state changes each call, p99",
                unit: "µs",
                value: changing.microseconds(at: 99),
                floor: floor?.p99,
                target: .ratioAtMost(4),
                peer: peer?.changing.microseconds(at: 99),
                goPeer: goPeer?.changing.microseconds(at: 99)
            )
        )
        try measureConcurrentRoundTrips(daemon)
    }

    /// Round trips from many clients at once, of the steady intent and of intents that change the state.
    private func measureConcurrentRoundTrips(_ daemon: DaemonProcess) throws {
        let clients = plan.concurrentConnections
        Console.line(
            "Round trips from \(clients) clients at once: \(plan.concurrentRoundTrips) each, then "
                + "\(plan.concurrentChangingRoundTrips) state changes each (after \(plan.concurrentWarmUp) untimed "
                + "each)"
        )
        let steady = try ConcurrentRoundTrips.measure(
            socketPath: daemon.socketPath,
            requests: Self.concurrentSteadyIntents(clients: clients),
            callsPerConnection: plan.concurrentRoundTrips,
            warmUp: plan.concurrentWarmUp
        )
        let changing = try ConcurrentRoundTrips.measure(
            socketPath: daemon.socketPath,
            requests: Self.concurrentChangingIntents(session: "rt", clients: clients),
            callsPerConnection: plan.concurrentChangingRoundTrips,
            warmUp: plan.concurrentWarmUp
        )
        try RoundTrip.once(socketPath: daemon.socketPath, request: Self.steadyIntent)
        Console.line(
            "  p50 \(steady.microseconds(at: 50).fixed(1)) µs, p99 \(steady.microseconds(at: 99).fixed(1)) µs; "
                + "changing p50 \(changing.microseconds(at: 50).fixed(1)) µs, "
                + "p99 \(changing.microseconds(at: 99).fixed(1)) µs"
        )
        details.append(("concurrentConnections", .integer(clients)))
        details.append(("concurrentRoundTrip", Self.report(steady, unit: "µs")))
        details.append(("concurrentRoundTripChangingState", Self.report(changing, unit: "µs")))
        let kinds:
            [(
                key: String, label: String, latencies: LatencyRecorder, peer: LatencyRecorder?,
                goPeer: LatencyRecorder?, note: String?
            )] = [
                (
                    "concurrentRoundTrip", "intent round trip", steady, peer?.steadyConcurrent,
                    goPeer?.steadyConcurrent, nil
                ),
                (
                    "concurrentRoundTripChangingState", "round trip, state changes each call", changing,
                    peer?.changingConcurrent, goPeer?.changingConcurrent,
                    "all clients change the same session's screen, each to texts of its own"
                ),
            ]
        for (key, label, latencies, peerLatencies, goPeerLatencies, note) in kinds {
            rows.append(
                ResultRow(
                    key: "\(key).p50",
                    label: "\(label), \(clients) clients at once, p50",
                    unit: "µs",
                    value: latencies.microseconds(at: 50),
                    peer: peerLatencies?.microseconds(at: 50),
                    peerTarget: peerTarget(.fasterBy(3)),
                    goPeer: goPeerLatencies?.microseconds(at: 50),
                    note: note
                )
            )
            rows.append(
                ResultRow(
                    key: "\(key).p99",
                    label: "\(label), \(clients) clients at once, p99",
                    unit: "µs",
                    value: latencies.microseconds(at: 99),
                    peer: peerLatencies?.microseconds(at: 99),
                    goPeer: goPeerLatencies?.microseconds(at: 99)
                )
            )
        }
    }

    /// Checks that each peer measured answered ``ScreenAgreement/probes`` as navhostd does, before navhostd's first
    /// measurement; the probes leave the session's screen filtered, and the warm-up of the next measurement sets it
    /// back.
    private func requirePeersAgree(with daemon: DaemonProcess) throws {
        let measured = [("Python peer", peer), ("Go peer", goPeer)].compactMap { name, figures in
            figures.map { (name, $0.probeReplies) }
        }
        guard !measured.isEmpty else { return }
        let daemonReplies = try ScreenAgreement.replies(socketPath: daemon.socketPath)
        for (name, replies) in measured {
            try ScreenAgreement.requireSameReplies(replies, as: daemonReplies, peer: name)
        }
        Console.line("Peers: \(measured.map(\.0).joined(separator: " and ")) answer the probes as navhostd does")
        details.append(("peersAnswerTheProbesAsNavhostd", .string(measured.map(\.0).joined(separator: ", "))))
    }

    private func measurePipelined(_ daemon: DaemonProcess) throws {
        for (connections, calls) in [
            (1, plan.pipelinedOneConnection), (plan.pipelinedConnections, plan.pipelinedPerConnection),
        ] {
            Console.line("Pipelined: \(connections) connection(s) × \(plan.depth) in flight, \(calls) calls each")
            // A short untimed run first, so the daemon's buffers and caches are warm for the timed one.
            _ = try Pipelined.measure(
                socketPath: daemon.socketPath,
                request: Self.steadyIntent,
                connections: connections,
                depth: plan.depth,
                callsPerConnection: max(calls / 20, plan.depth)
            )
            let before = try daemon.usage()
            let result = try Pipelined.measure(
                socketPath: daemon.socketPath,
                request: Self.steadyIntent,
                connections: connections,
                depth: plan.depth,
                callsPerConnection: calls
            )
            let usage = try daemon.usage().perOperation(since: before, count: result.calls)
            Console.line(
                "  \(result.requestsPerSecond.fixed(0)) req/s; daemon CPU \(usage.cpuMicroseconds.fixed(1)) µs and "
                    + "\(usage.switches.fixed(2)) context switches per call"
            )
            details.append(
                (
                    "pipelined\(connections)",
                    .object([
                        ("connections", .integer(connections)),
                        ("depth", .integer(plan.depth)),
                        ("calls", .integer(result.calls)),
                        ("seconds", .rounded(result.seconds, 4)),
                        ("requestsPerSecond", .rounded(result.requestsPerSecond, 0)),
                        ("daemonCPUMicrosecondsPerCall", .rounded(usage.cpuMicroseconds, 2)),
                        ("daemonContextSwitchesPerCall", .rounded(usage.switches, 3)),
                    ])
                )
            )
            rows.append(
                ResultRow(
                    key: "pipelined.\(connections)",
                    label: "pipelined, \(connections) conn × \(plan.depth) in flight",
                    unit: "req/s",
                    value: result.requestsPerSecond,
                    floor: floor?.requestsPerSecond,
                    // Issue #17: at least half the floor's throughput on one connection, 60 % on many.
                    target: .ratioAtLeast(connections == 1 ? 0.5 : 0.6),
                    peer: connections == 1 ? peer?.pipelined.requestsPerSecond : nil,
                    peerTarget: connections == 1 ? peerTarget(.throughputTimes(10)) : nil,
                    goPeer: connections == 1 ? goPeer?.pipelined.requestsPerSecond : nil,
                    note: connections > 1 ? "compared with the floor's one connection" : nil
                )
            )
        }
    }

    private func measureFanOut(_ daemon: DaemonProcess) throws {
        var sizes: [(String, ReportValue)] = []
        for (watchers, rounds) in plan.fanOut {
            Console.line("Fan-out: one state change to \(watchers) watcher(s), \(rounds) times")
            let result = try FanOut.measure(
                daemon: daemon,
                session: "fan",
                changes: Self.changingIntents(session: "fan"),
                watchers: watchers,
                rounds: rounds,
                warmUp: plan.fanOutWarmUp
            )
            let latencies = result.latencies
            let (p50, p99) = (latencies.milliseconds(at: 50), latencies.milliseconds(at: 99))
            Console.line(
                "  last watcher has it: p50 \(p50.fixed(3)) ms, p99 \(p99.fixed(3)) ms; "
                    + "daemon CPU \(result.daemonCPUMicroseconds.fixed(0)) µs per change"
            )
            sizes.append(
                (
                    "\(watchers)",
                    .object([
                        ("latency", Self.report(latencies, unit: "µs")),
                        ("daemonCPUMicrosecondsPerChange", .rounded(result.daemonCPUMicroseconds, 1)),
                    ])
                )
            )
            rows.append(
                ResultRow(
                    key: "fanOut.\(watchers).p50",
                    label: "fan-out to \(watchers) watcher\(watchers == 1 ? "" : "s") p50",
                    unit: "ms",
                    value: p50,
                    target: watchers == 1000 ? .valueAtMost(10) : nil
                )
            )
            rows.append(
                ResultRow(
                    key: "fanOut.\(watchers).p99",
                    label: "fan-out to \(watchers) watcher\(watchers == 1 ? "" : "s") p99",
                    unit: "ms",
                    value: p99
                )
            )
            // The daemon closes the watchers' calls; give it a moment before the next size.
            MonotonicClock.sleep(milliseconds: 200)
        }
        details.append(("fanOut", .object(sizes)))
    }

    /// Replaces the Settings plugin's files while a watcher follows a Settings screen (see ``HotReload``).
    private func measureHotReload() throws {
        let plugins = "\(workDirectory)/hot-plugins"
        let (copied, output) = try Subprocess.run(["cp", "-RL", launch.plugins, plugins])
        guard copied.succeeded else { throw BenchError("copying the staged plugins failed: \(output)") }
        var hotLaunch = launch
        hotLaunch.plugins = plugins
        let daemon = try DaemonProcess(hotLaunch, name: "reload")
        defer { daemon.stop() }
        Console.line("Hot reload: Settings replaced while a watcher follows settings.main, \(plan.reloads) times")
        var reloads = LatencyRecorder()
        var missing: String?
        for attempt in 1...plan.reloads {
            let outcome = try HotReload.attempt(
                socketPath: daemon.socketPath,
                pluginDirectory: plugins,
                plugin: "Settings",
                version: "1.0.\(attempt)",
                session: "hot",
                limitMilliseconds: plan.reloadLimitMilliseconds
            )
            switch outcome {
            case .reloaded(let nanoseconds):
                reloads.record(nanoseconds: nanoseconds)
            case .notSeen(let what):
                missing = what
            }
            if missing != nil { break }
        }
        if let missing {
            Console.line("  not seen: \(missing)")
            details.append(("hotReload", .object([("seen", .bool(false)), ("missing", .string(missing))])))
        } else {
            Console.line("  p50 \(reloads.milliseconds(at: 50).fixed(1)) ms")
            details.append(("hotReload", Self.report(reloads, unit: "µs")))
        }
        rows.append(
            ResultRow(
                key: "hotReload.p50",
                label: "hot reload, file replaced → watcher sees it, p50",
                unit: "ms",
                value: missing == nil ? reloads.milliseconds(at: 50) : nil,
                target: .valueAtMost(100),
                note: missing.map { "pending: hot reload of plugins is not on main yet (\($0))" }
            )
        )
    }

    private func measureStartUp() throws {
        Console.line("Start to READY=1 and plugin loads: \(plan.starts) starts (after one untimed)")
        var starts = LatencyRecorder()
        var loads: [String: LatencyRecorder] = [:]
        for index in 0...plan.starts {
            let daemon = try DaemonProcess(launch, name: "start-\(index)")
            daemon.stop()
            guard index > 0 else { continue }
            starts.record(nanoseconds: daemon.startNanoseconds)
            for (plugin, nanoseconds) in PluginLoad.durations(inLog: daemon.logPath) {
                loads[plugin, default: LatencyRecorder()].record(nanoseconds: nanoseconds)
            }
        }
        Console.line(
            "  p50 \(starts.milliseconds(at: 50).fixed(1)) ms, max \(starts.milliseconds(at: 100).fixed(1)) ms"
        )
        details.append(("startToReady", Self.report(starts, unit: "µs")))
        let plugins = loads.sorted { $0.key < $1.key }
        details.append(("pluginLoad", .object(plugins.map { ($0.key, Self.report($0.value, unit: "µs")) })))
        guard !plugins.isEmpty else {
            throw BenchError("the daemon's log shows no plugin loaded (is \(launch.plugins) staged?)")
        }
        for (plugin, durations) in plugins {
            Console.line("  plugin \(plugin) loads in \(durations.milliseconds(at: 50).fixed(2)) ms (p50)")
            rows.append(
                ResultRow(
                    key: "pluginLoad.\(plugin).p50",
                    label: "plugin load, \(plugin), p50",
                    unit: "ms",
                    value: durations.milliseconds(at: 50),
                    target: .valueAtMost(5),
                    note: "the registry's own timing (checks, SHA-256, dlopen, entry point, registration), from its log"
                )
            )
        }
        rows.append(
            ResultRow(
                key: "startToReady.p50",
                label: "start to READY=1 p50",
                unit: "ms",
                value: starts.milliseconds(at: 50)
            )
        )
    }

    private func measureMemory() throws {
        let daemon = try DaemonProcess(launch, name: "memory")
        defer { daemon.stop() }
        MonotonicClock.sleep(milliseconds: plan.settleMilliseconds)
        let memory = try daemon.residentMemory()
        let idle = memory.total
        Console.line(
            "RSS idle: \(idle) KiB (\(memory.anonymous) KiB anonymous, \(memory.file) KiB of mapped files); "
                + "opening \(plan.idleConnections) connections, one GetInfo each"
        )
        var connections: [RawConnection] = []
        for _ in 0..<plan.idleConnections {
            let connection = try RawConnection(path: daemon.socketPath, initialCapacity: 4096)
            try connection.write(VarlinkMessage.getInfo)
            connections.append(connection)
        }
        let replies = ReplyReader()
        for connection in connections {
            try connection.nextMessage { message in try replies.read(message) { _ in () } }
        }
        MonotonicClock.sleep(milliseconds: plan.settleMilliseconds)
        let loaded = try daemon.residentKilobytes()
        let perConnection = Double(loaded - idle) * 1.024 / Double(plan.idleConnections)
        Console.line("  with them idle: \(loaded) KiB, \(perConnection.fixed(1)) KB per connection")
        details.append(
            (
                "memory",
                .object([
                    ("idleKiB", .integer(idle)),
                    ("idleAnonymousKiB", .integer(memory.anonymous)),
                    ("idleFileKiB", .integer(memory.file)),
                    ("connections", .integer(plan.idleConnections)),
                    ("withConnectionsKiB", .integer(loaded)),
                    ("perConnectionKB", .rounded(perConnection, 2)),
                ])
            )
        )
        rows.append(
            ResultRow(
                key: "rss.idle",
                label: "RSS idle",
                unit: "MB",
                value: Double(idle) * 1024 / 1_000_000,
                target: .valueAtMost(25),
                note:
                    "VmRSS; \(memory.anonymous) KiB of it the daemon's own memory, \(memory.file) KiB pages of mapped files"
            )
        )
        rows.append(
            ResultRow(
                key: "rss.perIdleConnection",
                label: "RSS per idle connection (\(plan.idleConnections))",
                unit: "KB",
                value: perConnection,
                target: .valueAtMost(32)
            )
        )
        withExtendedLifetime(connections) {}
    }

    /// The floor and NavHost again with everything on CPU 0: no cross-CPU wake-ups, one core shared.
    private func measureOneCore() throws {
        let original = try CPUAffinity.current()
        try CPUAffinity.pin(to: 0)
        defer { try? CPUAffinity.apply(original) }
        Console.line("One core: the benchmark, the floor and a daemon all on CPU 0")
        let binary =
            try floorBinary ?? Floor.build(sourceDirectory: floorSource, buildDirectory: floorBuildDirectory)
        let floor = try Floor.run(
            binary: binary,
            roundTrips: plan.floorRoundTrips,
            pipelined: plan.floorPipelined,
            depth: plan.depth
        )
        Console.line(floor.output)
        details.append(("floorOneCore", Self.report(floor)))
        let daemon = try DaemonProcess(launch, name: "one-core")
        defer { daemon.stop() }
        let latencies = try RoundTrip.measure(
            socketPath: daemon.socketPath,
            request: Self.steadyIntent,
            calls: plan.roundTrips,
            warmUp: plan.warmUp
        )
        let pipelined = try Pipelined.measure(
            socketPath: daemon.socketPath,
            request: Self.steadyIntent,
            connections: 1,
            depth: plan.depth,
            callsPerConnection: plan.pipelinedOneConnection
        )
        Console.line(
            "  NavHost: p50 \(latencies.microseconds(at: 50).fixed(1)) µs, "
                + "p99 \(latencies.microseconds(at: 99).fixed(1)) µs, \(pipelined.requestsPerSecond.fixed(0)) req/s"
        )
        details.append(("roundTripOneCore", Self.report(latencies, unit: "µs")))
        details.append(("pipelinedOneCore", .rounded(pipelined.requestsPerSecond, 0)))
        rows.append(
            ResultRow(
                key: "oneCore.roundTrip.p50",
                label: "one core: intent round trip p50",
                unit: "µs",
                value: latencies.microseconds(at: 50),
                floor: floor.median
            )
        )
        rows.append(
            ResultRow(
                key: "oneCore.roundTrip.p99",
                label: "one core: intent round trip p99",
                unit: "µs",
                value: latencies.microseconds(at: 99),
                floor: floor.p99
            )
        )
        rows.append(
            ResultRow(
                key: "oneCore.pipelined.1",
                label: "one core: pipelined, 1 conn × \(plan.depth)",
                unit: "req/s",
                value: pipelined.requestsPerSecond,
                floor: floor.requestsPerSecond
            )
        )
    }

    // MARK: - Helpers

    /// `target` when the run measures the peer (pending if the peer gave no figure), else none.
    private func peerTarget(_ target: ResultRow.PeerTarget) -> ResultRow.PeerTarget? {
        phases.contains(.peer) ? target : nil
    }

    private func raiseDescriptorLimit() {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let needed = rlim_t(plan.idleConnections + 1200)
        if limit.rlim_cur < needed {
            limit.rlim_cur = min(limit.rlim_max, max(needed, 4096))
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
    }

    private static func report(_ floor: Floor.Result) -> ReportValue {
        .object([
            ("medianMicroseconds", .rounded(floor.median, 2)),
            ("p90Microseconds", .rounded(floor.p90, 2)),
            ("p99Microseconds", .rounded(floor.p99, 2)),
            ("p99_9Microseconds", .rounded(floor.p999, 2)),
            ("meanMicroseconds", .rounded(floor.mean, 2)),
            ("pipelinedRequestsPerSecond", .rounded(floor.requestsPerSecond, 0)),
            ("output", .string(floor.output)),
        ])
    }

    private static func report(_ latencies: LatencyRecorder, unit: String) -> ReportValue {
        .object([
            ("count", .integer(latencies.count)),
            ("unit", .string(unit)),
            ("p50", .rounded(latencies.microseconds(at: 50), 2)),
            ("p90", .rounded(latencies.microseconds(at: 90), 2)),
            ("p99", .rounded(latencies.microseconds(at: 99), 2)),
            ("p99_9", .rounded(latencies.microseconds(at: 99.9), 2)),
            ("max", .rounded(latencies.maxMicroseconds, 2)),
            ("mean", .rounded(latencies.meanMicroseconds, 2)),
        ])
    }

    private static func utcNow() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
        return string(fromCString: buffer)
    }
}

extension ResultRow.Status {
    /// The statuses counted in the summary.
    static let allCounted: [ResultRow.Status] = [.met, .missed, .pending]
}

/// Progress lines, written straight to stdout so they show at once even when stdout is a pipe.
enum Console {
    static func line(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            if written <= 0 { return }
            offset += written
        }
    }
}
