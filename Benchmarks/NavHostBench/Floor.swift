import Glibc

/// The C floor, `floor.c` from the shared bench folder: built with its own Makefile into a build folder of ours (the
/// source is linked, not copied), and run in the same session as the NavHost measurements.
enum Floor {
    /// What one run of the floor printed.
    struct Result {
        /// Ping-pong latency percentiles in microseconds.
        var median: Double
        var p90: Double
        var p99: Double
        var p999: Double
        var mean: Double
        /// Pipelined requests per second.
        var requestsPerSecond: Double
        /// The two lines as printed.
        var output: String
    }

    /// Builds `floor` from `sourceDirectory` (its `floor.c` and `Makefile`) into `buildDirectory`; returns the binary.
    static func build(sourceDirectory: String, buildDirectory: String) throws -> String {
        let source = absolute(sourceDirectory)
        guard access("\(source)/floor.c", R_OK) == 0, access("\(source)/Makefile", R_OK) == 0 else {
            throw BenchError("no floor.c and Makefile in \(source) (pass --floor-source)")
        }
        try makeDirectories(buildDirectory)
        let link = "\(buildDirectory)/floor.c"
        unlink(link)
        guard symlink("\(source)/floor.c", link) == 0 else { throw BenchError.system("symlink(\(link))") }
        let (termination, output) = try Subprocess.run([
            "make", "--no-print-directory", "-C", buildDirectory, "-f", "\(source)/Makefile", "floor",
        ])
        guard termination.succeeded else { throw BenchError("building the floor failed:\n\(output)") }
        return "\(buildDirectory)/floor"
    }

    /// Runs the floor: `roundTrips` ping-pongs, then `pipelined` calls with `depth` in flight.
    static func run(binary: String, roundTrips: Int, pipelined: Int, depth: Int) throws -> Result {
        let (termination, output) = try Subprocess.run([binary, "\(roundTrips)", "\(pipelined)", "\(depth)"])
        guard termination.succeeded else { throw BenchError("the floor failed:\n\(output)") }
        return try parse(output)
    }

    /// The CPU time of the floor's round trip, measured by a run of its own: round trips only (one pipelined call),
    /// with the CPU of both its processes, the client and the server it forks and waits for, from `wait4`.
    struct CPUResult {
        /// Round trips made, `floor.c`'s untimed warm-up included.
        var roundTrips: Int
        /// Both processes' CPU time per round trip, in microseconds.
        var bothEndsMicroseconds: Double
        /// Half of it: what one end, the server, uses per round trip. The two ends do alike work (a json-c parse, a
        /// json-c document built and written, one read and one write), so half is a fair figure to set a server's
        /// CPU per round trip against.
        var oneEndMicroseconds: Double { bothEndsMicroseconds / 2 }
    }

    /// The round trips `floor.c` makes before it times any (its warm-up).
    static let untimedRoundTrips = 1000

    /// Runs the floor for `roundTrips` round trips and one pipelined call, and measures its CPU time.
    static func measureCPU(binary: String, roundTrips: Int) throws -> CPUResult {
        let finished = try Subprocess.runMeasuringCPU([binary, "\(roundTrips)", "1", "1"])
        guard finished.termination.succeeded else { throw BenchError("the floor failed:\n\(finished.output)") }
        let made = roundTrips + untimedRoundTrips
        return CPUResult(
            roundTrips: made,
            bothEndsMicroseconds: Double(finished.cpuNanoseconds) / 1000 / Double(made)
        )
    }

    /// Reads the floor's two lines.
    static func parse(_ output: String) throws -> Result {
        let lines = output.split(separator: "\n")
        guard let pingPong = lines.first(where: { $0.contains("ping-pong") }),
            let pipelined = lines.first(where: { $0.contains("pipelined") })
        else { throw BenchError("unexpected output from the floor:\n\(output)") }
        func field(_ name: String) throws -> Double {
            let token = pingPong.split(separator: " ").first { $0.hasPrefix("\(name)=") }
            guard let token, let value = Double(token.dropFirst(name.count + 1).replacing("us", with: "")) else {
                throw BenchError("no \(name) in the floor's output: \(pingPong)")
            }
            return value
        }
        let words = pipelined.split(separator: " ")
        guard let unit = words.firstIndex(of: "req/s"), unit > 0, let rate = Double(words[unit - 1]) else {
            throw BenchError("no req/s in the floor's output: \(pipelined)")
        }
        return Result(
            median: try field("median"),
            p90: try field("p90"),
            p99: try field("p99"),
            p999: try field("p99.9"),
            mean: try field("mean"),
            requestsPerSecond: rate,
            output: output.trimmingSuffix()
        )
    }

    private static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        guard realpath(path, &buffer) != nil else { return path }
        return string(fromCString: buffer)
    }
}

/// Creates `path` and its missing parents.
func makeDirectories(_ path: String) throws {
    var current = path.hasPrefix("/") ? "" : "."
    for component in path.split(separator: "/") {
        current += "/\(component)"
        if mkdir(current, 0o755) != 0, errno != EEXIST { throw BenchError.system("mkdir(\(current))") }
    }
}

extension String {
    /// The string without trailing white space and newlines.
    func trimmingSuffix() -> String {
        var result = self
        while let last = result.last, last.isWhitespace { result.removeLast() }
        return result
    }
}
