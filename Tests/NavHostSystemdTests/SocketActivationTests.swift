import Foundation
import IntegrationHarness
import NavHostSystemd
import Testing

/// Socket activation through `systemd-socket-activate`, which passes `LISTEN_FDS`, `LISTEN_FDNAMES` and
/// `LISTEN_PID` the way systemd does.
@Suite("The daemon takes its listening socket from systemd")
struct SocketActivationTests {
    @Test("Under systemd-socket-activate the daemon finds the socket named varlink and serves on it")
    func findsNamedSocket() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let socketPath = directory.appending("io.navhost")
        let activator = try SpawnedProcess(
            "/usr/bin/systemd-socket-activate",
            ["-l", socketPath, "--fdname=varlink", TestPaths.builtExecutable("NotifyProbe"), "socket-activation"]
        )
        let announcement = try #require(await activator.readErrorLine())
        #expect(announcement.contains("Listening on \(socketPath)"), "\(announcement)")

        let reply = try await offThePool { try UnixStreamClient.exchange(path: socketPath) }
        #expect(reply == "varlink fd 3, environment cleared: true\n")
        #expect(await activator.waitForExit() == 0)
    }

    @Test("A descriptor named varlink that is not a listening stream socket is refused")
    func refusesDatagramSocket() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let socketPath = directory.appending("io.navhost")
        let activator = try SpawnedProcess(
            "/usr/bin/systemd-socket-activate",
            [
                "--datagram", "-l", socketPath, "--fdname=varlink", TestPaths.builtExecutable("NotifyProbe"),
                "socket-activation",
            ]
        )
        _ = try #require(await activator.readErrorLine())
        // systemd-socket-activate starts the probe when the first datagram arrives.
        let sender = try JournalSocket(path: socketPath)
        try sender.send(JournalEntry(fields: [try #require(JournalField(name: "WAKE", value: "up"))]))
        let line = try #require(await activator.readOutputLine())
        #expect(line.contains("notAListeningUnixSocket"), "\(line)")
        #expect(await activator.waitForExit() == 1)
    }

    @Test(
        "Without LISTEN_FDS there is no inherited socket",
        .enabled(if: ProcessInfo.processInfo.environment["LISTEN_FDS"] == nil)
    )
    func notActivated() throws {
        #expect(try SocketActivation.inheritedDescriptors(unsetEnvironment: false).isEmpty)
        #expect(try SocketActivation.listeningUnixSocket(named: "varlink", unsetEnvironment: false) == nil)
    }
}

/// Connects to a stream socket, half-closes, and reads everything the server writes.
enum UnixStreamClient {
    static func exchange(path: String) throws -> String {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError.current }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { throw POSIXError.current }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            received.append(contentsOf: buffer.prefix(count))
        }
        return String(decoding: received, as: UTF8.self)
    }
}
