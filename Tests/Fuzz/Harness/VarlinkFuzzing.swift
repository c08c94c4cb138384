import Dispatch
import Foundation
import Glibc
import IntegrationHarness
import Logging
package import NavHostVarlink
import Synchronization

/// Runs fuzz inputs through the daemon's Varlink front door, in-process.
///
/// An input is the byte stream a client sends on one connection: any number of NUL-terminated messages
/// (pipelining), possibly ending inside one. It is delivered in three reads (split at a third and two thirds of its
/// length), then the client half-closes. Everything the server writes back is checked by a ``ReplyOracle``.
///
/// ## State between inputs
/// None: every input gets a fresh ``NavigationFuzzHost`` (registry, sessions, features, in-memory store) and a fresh
/// connection, and everything is closed before the next input. A crash file therefore reproduces on its own.
///
/// ## Streams
/// A `Watch` call with `more` streams until its session closes, and the calls after it wait for it (a `more` call
/// runs alone). When the first reply with `continues` of a stream arrives, the driver restarts the sessions, as if
/// the daemon had closed them: the watcher ends, the stream gets its final reply, and the later calls run on fresh
/// sessions. That keeps a run deterministic: the later calls always see the same state.
package enum VarlinkFuzzing {
    /// The daemon's server configuration, with a smaller message limit: 4 KiB instead of 1 MiB, so that the
    /// fuzzer's inputs (at most 16 KiB by default) can exceed it. Everything else is `navhostd`'s.
    package static let configuration: VarlinkServerConfiguration = {
        var configuration = VarlinkServerConfiguration()
        configuration.maxConnections = 4096
        configuration.maxConnectionsPerUID = 2048
        configuration.maxMessageSize = 4096
        return configuration
    }()

    /// How long one input may take before it counts as a hang.
    package static let timeLimit: Duration = .seconds(5)

    /// What serving one input gave.
    package struct Report: Sendable {
        /// The messages the server wrote, without their terminators.
        package var messages: [String] = []
        /// Calls answered with a final reply.
        package var finalReplies = 0
        /// Whether the input breaks the protocol (the server must close the connection at that point).
        package var inputBreaksProtocol = false
        /// How many messages the json-c reader read and the oracle held to the general reading.
        package var callsComparedWithTheReader = 0
        /// Every rule the replies broke, in words; empty when the server answered correctly.
        package var violations: [String] = []
    }

    /// Serves `input` on a fresh host and connection and checks the replies.
    package static func run(_ input: [UInt8]) async throws -> Report {
        var logger = Logger(label: "navhost.fuzz") { _ in FormattingLogHandler() }
        logger.logLevel = .trace
        let host = try await MainActor.run { [logger] in try NavigationFuzzHost(logger: logger) }
        let service = await MainActor.run { host.service }
        let connection = try await InProcessVarlinkConnection.start(
            service: service,
            configuration: configuration,
            peer: NavigationFuzzHost.controllingPeer,
            logger: logger
        )
        let cuts = [0, input.count / 3, input.count * 2 / 3, input.count]
        for (start, end) in zip(cuts, cuts.dropFirst()) where start < end {
            await connection.write(input[start..<end])
        }
        await connection.endInput()

        var oracle = ReplyOracle(input: input, service: service, configuration: configuration)
        var report = Report()
        var streaming = false
        while let message = await connection.nextMessage() {
            report.messages.append(String(decoding: message.readableBytesView.dropLast(), as: UTF8.self))
            let continues = oracle.check(message)
            if continues, !streaming {
                try await MainActor.run { try host.restartSessions() }
            }
            streaming = continues
        }
        await connection.finish()
        await MainActor.run { host.close() }
        oracle.finish()
        report.finalReplies = oracle.finalReplies
        report.inputBreaksProtocol = oracle.inputBreaksProtocol
        report.callsComparedWithTheReader = oracle.callsComparedWithTheReader
        report.violations = oracle.violations
        return report
    }

    /// Serves `input` from a synchronous caller on the main thread (libFuzzer's), and stops the process when the
    /// server answered wrongly or the input took longer than ``timeLimit``.
    ///
    /// NavHost's sessions live on the main actor, whose jobs run on the main thread; libFuzzer calls in on that
    /// thread and waits for the answer, so this runs the main run loop until the input has been served.
    package static func runOnMainThread(_ input: [UInt8]) {
        _ = warmedUp
        if leakProbe { LeakProbe.leak() }
        let outcome = Outcome()
        Task {
            let result: Result<Report, any Error>
            do {
                result = .success(try await run(input))
            } catch {
                result = .failure(error)
            }
            outcome.result.withLock { $0 = result }
            // Wake the main run loop, which may be waiting for main-actor work.
            DispatchQueue.main.async {}
        }
        let deadline = ContinuousClock.now + timeLimit
        while outcome.result.withLock({ $0 }) == nil {
            if ContinuousClock.now > deadline {
                fatalError("navhost-fuzz: the input was not served within \(timeLimit): the connection hangs")
            }
            _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
        }
        switch outcome.result.withLock({ $0 })! {
        case .success(let report):
            guard report.violations.isEmpty else {
                fatalError("navhost-fuzz: wrong replies:\n" + report.violations.joined(separator: "\n"))
            }
        case .failure(let error):
            fatalError("navhost-fuzz: the driver failed: \(error)")
        }
    }
}

// MARK: - LeakSanitizer and Swift enums

extension VarlinkFuzzing {
    /// Builds the values that live for the whole process (the built-in `org.varlink.service` definition) with
    /// LeakSanitizer not tracking them.
    ///
    /// LeakSanitizer reports memory that no pointer it can see refers to. Swift stores the case of a multi-payload
    /// enum in the spare high bits of a payload's pointer (`indirect enum VarlinkType` is one), so a box that is only
    /// referred to from such an enum looks unreferenced, and a parsed interface definition that lives in a global is
    /// reported as a leak although it is reachable. Values that live for one input are freed before the leak check
    /// runs and stay tracked; only these one-time globals are excluded.
    private static let warmedUp: Void = {
        withoutLeakTracking {
            _ = VarlinkService(vendor: "", product: "", version: "", url: "").interface(named: "org.varlink.service")
        }
    }()

    /// Runs `body` with LeakSanitizer's `__lsan_disable`/`__lsan_enable` around it, when the process has them.
    private static func withoutLeakTracking(_ body: () -> Void) {
        typealias Toggle = @convention(c) () -> Void
        let disable = dlsym(nil, "__lsan_disable").map { unsafeBitCast($0, to: Toggle.self) }
        let enable = dlsym(nil, "__lsan_enable").map { unsafeBitCast($0, to: Toggle.self) }
        disable?()
        body()
        enable?()
    }
}

extension VarlinkFuzzing {
    /// Set `NAVHOST_FUZZ_LEAK_PROBE` to leak a little memory with every input, to check that a run with a leak fails.
    private static let leakProbe = ProcessInfo.processInfo.environment["NAVHOST_FUZZ_LEAK_PROBE"] != nil

    /// Two objects that keep each other alive once nothing else refers to them.
    private final class LeakProbe {
        var other: LeakProbe?

        static func leak() {
            let first = LeakProbe()
            let second = LeakProbe()
            first.other = second
            second.other = first
        }
    }
}

/// Where the task serving an input leaves its result for the main thread.
private final class Outcome: Sendable {
    let result = Mutex<Result<VarlinkFuzzing.Report, any Error>?>(nil)
}
