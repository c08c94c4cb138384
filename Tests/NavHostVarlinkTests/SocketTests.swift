import Foundation
import InMemoryLogging
import IntegrationHarness
import Logging
import NavHostVarlink
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("The server's listening socket")
struct SocketTests {
    @Test("A socket file the server binds gets mode 0660 by default, replacing a stale one")
    func socketMode() async throws {
        let path = TestPaths.socketPath()
        close(try makeListeningSocket(at: path))
        let server = try await VarlinkServer.bind(
            unixSocketPath: path,
            service: VarlinkService(vendor: "v", product: "p", version: "1", url: "u"),
            logger: quietLogger()
        )
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o660)
        #expect(status.st_mode & S_IFMT == S_IFSOCK)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            server.shutdownGracefully()
            try await group.next()
        }
    }

    @Test("A server on an inherited listening descriptor serves calls, as under socket activation")
    func inheritedSocket() async throws {
        let path = TestPaths.socketPath()
        let descriptor = try makeListeningSocket(at: path)
        let server = try await VarlinkServer.bind(
            listeningSocket: descriptor,
            service: VarlinkService(vendor: "v", product: "inherited", version: "1", url: "u"),
            logger: quietLogger()
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            let client = try await VarlinkClient.connect(unixSocketPath: path)
            let info = try await client.call("org.varlink.service.GetInfo")
            #expect(info["product"] == "inherited")
            try await client.close()
            server.shutdownGracefully()
            try await group.next()
        }
        unlink(path)
    }

    @Test(
        "A call or a more call on a connection already closed fails with connectionClosed instead of waiting",
        .timeLimit(.minutes(1))
    )
    func callAfterClose() async throws {
        let path = TestPaths.socketPath()
        let server = try await VarlinkServer.bind(
            unixSocketPath: path,
            service: VarlinkService(vendor: "v", product: "p", version: "1", url: "u"),
            logger: quietLogger()
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            let client = try await VarlinkClient.connect(unixSocketPath: path)
            try await client.close()

            let single = await #expect(throws: VarlinkClientError.self) {
                try await withTimeout(.seconds(10), "the call's failure") {
                    try await client.call("org.varlink.service.GetInfo")
                }
            }
            #expect(single?.code == .connectionClosed)
            let streamed = await #expect(throws: VarlinkClientError.self) {
                try await withTimeout(.seconds(10), "the more call's failure") {
                    for try await _ in client.callMore("org.varlink.service.GetInfo") {}
                }
            }
            #expect(streamed?.code == .connectionClosed)
            server.shutdownGracefully()
            try await group.next()
        }
    }

    @Test(
        "A server looks at its socket path under the path's lock: a socket another server bound while it waited stays",
        .timeLimit(.minutes(1))
    )
    func bindWaitsForTheSocketPathLock() async throws {
        let path = TestPaths.socketPath()
        defer { unlink(path + ".lock") }
        close(try makeListeningSocket(at: path))  // a stale socket file: nothing listens on it
        // Another server in the middle of its own step: it holds the lock.
        let lockFile = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        try #require(lockFile >= 0 && flock(lockFile, LOCK_EX) == 0)
        let logs = InMemoryLogHandler()
        let binding = Task {
            try await VarlinkServer.bind(
                unixSocketPath: path,
                service: VarlinkService(vendor: "v", product: "p", version: "1", url: "u"),
                logger: Logger(label: "test") { _ in logs }
            )
        }
        try await withTimeout(.seconds(20), "the server's wait for the lock") {
            while !logs.entries.contains(where: { "\($0.message)".hasPrefix("Waiting for the socket path's lock") }) {
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        // The other server replaces the stale file with its listening socket, and lets the lock go.
        let other = try makeListeningSocket(at: path)
        defer { close(other) }
        var bound = stat()
        try #require(stat(path, &bound) == 0)
        close(lockFile)

        let refusal = await #expect(throws: VarlinkServer.SocketInUse.self) { try await binding.value }
        #expect(refusal?.path == path)
        var after = stat()
        #expect(stat(path, &after) == 0 && after.st_ino == bound.st_ino, "the other server's socket file stays")
    }

    @Test(
        "Servers waiting for their socket paths' locks hold no thread: more of them than the pool has threads stall no other task",
        .timeLimit(.minutes(1))
    )
    func lockWaitsHoldNoThread() async throws {
        // More waits than the concurrency pool has threads (one per core, as the runtime counts them): waits that
        // slept on their threads would leave this test's own task no thread until the first gave up, 10 s later, as
        // SocketPathLocked.
        let paths = (0..<max(16, ProcessInfo.processInfo.activeProcessorCount + 1)).map { _ in TestPaths.socketPath() }
        defer { for path in paths { unlink(path + ".lock") } }
        var lockFiles: [Int32] = []
        defer { for lockFile in lockFiles { close(lockFile) } }
        for path in paths {
            let lockFile = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            try #require(lockFile >= 0 && flock(lockFile, LOCK_EX) == 0)
            lockFiles.append(lockFile)
        }
        let logs = InMemoryLogHandler()
        let bindings = paths.map { path in
            Task {
                try await VarlinkServer.bind(
                    unixSocketPath: path,
                    service: VarlinkService(vendor: "v", product: "p", version: "1", url: "u"),
                    logger: Logger(label: "test") { _ in logs }
                )
            }
        }
        try await withTimeout(.seconds(20), "every server's wait for its lock") {
            while logs.entries.filter({ "\($0.message)".hasPrefix("Waiting for the socket path's lock") }).count
                < paths.count
            {
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        for lockFile in lockFiles { flock(lockFile, LOCK_UN) }
        // Every server is stopped, whichever bind failed.
        var failure: (any Error)?
        for binding in bindings {
            do {
                let server = try await binding.value
                server.shutdownGracefully()
                try await server.run()
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
    }

    /// Binds and listens on a new `AF_UNIX` socket at `path`, like a service manager would.
    private func makeListeningSocket(at path: String) throws -> CInt {
        unlink(path)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0 && listen(descriptor, 16) == 0)
        return descriptor
    }
}
