import Foundation
import IntegrationHarness
import NavHostJSON
import Synchronization

/// Debian's Chromium, headless, driven through its DevTools protocol over a pipe (`--remote-debugging-pipe`).
///
/// Chromium reads protocol messages from its descriptor 3 and writes its own to descriptor 4, each one JSON text
/// followed by a NUL byte: the transport Puppeteer uses, with no port to find and no websocket client to build.
/// Its standard output and error go to `chromium.log` in the profile folder.
final class HeadlessChromium: Sendable {
    /// Chromium is not installed: the test fails with this, it is not skipped.
    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    /// An error reply from the browser.
    struct ProtocolError: Error, CustomStringConvertible {
        var description: String
    }

    /// The program: `NAVHOST_CHROMIUM` when set, otherwise Debian's `/usr/bin/chromium`.
    static var executable: String {
        ProcessInfo.processInfo.environment["NAVHOST_CHROMIUM"] ?? "/usr/bin/chromium"
    }

    let profile: String
    private let pid: Int32
    private let commands: Int32
    private let replies: Int32
    private let state = Mutex(State())

    private struct State {
        var nextID = 1
        var waiting: [Int: CheckedContinuation<JSONValue, any Error>] = [:]
        var early: [Int: JSONValue] = [:]
        var ended = false
    }

    // MARK: - Starting and stopping

    /// Starts Chromium with a fresh profile folder in `profile`.
    init(profile: String, windowSize: (width: Int, height: Int) = (1400, 1000)) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
            throw Missing(
                description: """
                    \(Self.executable) is missing: the inspector's browser test needs Debian's chromium package \
                    (scripts/install-deps.sh installs it; apt-get install chromium), or NAVHOST_CHROMIUM naming one
                    """
            )
        }
        self.profile = profile
        var toBrowser: [Int32] = [0, 0]
        var fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else {
            throw ProtocolError(description: "pipe: \(String(cString: strerror(errno)))")
        }
        for descriptor in toBrowser + fromBrowser { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        defer {
            close(toBrowser[0])
            close(fromBrowser[1])
        }
        let arguments = [
            "--headless", "--no-sandbox", "--remote-debugging-pipe", "--user-data-dir=\(profile)",
            "--disable-gpu", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
            "--disable-background-networking", "--disable-sync", "--mute-audio",
            "--window-size=\(windowSize.width),\(windowSize.height)", "about:blank",
        ]
        let pid: Int32
        do {
            pid = try PosixSpawn.start(
                Self.executable,
                arguments,
                environment: ProcessInfo.processInfo.environment,
                descriptors: [
                    1: .file("\(profile)/chromium.log", flags: O_WRONLY | O_CREAT | O_TRUNC),
                    2: .duplicate(1),
                    3: .duplicate(toBrowser[0]),
                    4: .duplicate(fromBrowser[1]),
                ]
            )
        } catch {
            close(toBrowser[1])
            close(fromBrowser[0])
            throw error
        }
        self.pid = pid
        self.commands = toBrowser[1]
        self.replies = fromBrowser[0]
        let reader = Thread { [self] in readReplies() }
        reader.start()
    }

    /// Ends the browser and waits for it.
    func stop() async {
        close(commands)
        kill(pid, SIGTERM)
        let pid = self.pid
        _ = await offThePool {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return status
        }
    }

    /// What Chromium printed, for a failing test's message.
    var log: String {
        (try? String(contentsOfFile: "\(profile)/chromium.log", encoding: .utf8)) ?? ""
    }

    // MARK: - Calling

    /// Calls a DevTools method, on the page `session` when given, and returns its result.
    func call(
        _ method: String,
        _ parameters: JSONObject = [:],
        session: String? = nil,
        within limit: Duration = .seconds(30)
    ) async throws -> JSONValue {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        var message: JSONObject = ["id": .int(Int64(id)), "method": .string(method), "params": .object(parameters)]
        if let session { message["sessionId"] = .string(session) }
        var bytes = try JSONValue.object(message).serializedBytes()
        bytes.append(0)
        let written = bytes.withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw ProtocolError(description: "\(method): the browser's pipe closed") }
        let reply = try await withTimeout(limit, "Chromium's reply to \(method)") { [self] in
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    state.withLock { state in
                        if let early = state.early.removeValue(forKey: id) {
                            continuation.resume(returning: early)
                        } else if state.ended || Task.isCancelled {
                            continuation.resume(throwing: ProtocolError(description: "no reply to \(method)"))
                        } else {
                            state.waiting[id] = continuation
                        }
                    }
                }
            } onCancel: {
                state.withLock { $0.waiting.removeValue(forKey: id) }?
                    .resume(throwing: ProtocolError(description: "gave up waiting for \(method)"))
            }
        }
        if let error = reply["error"] {
            throw ProtocolError(description: "\(method): \((try? error.serializedString()) ?? "error")")
        }
        return reply["result"] ?? .null
    }

    /// Evaluates `expression` in the page and returns its value (`returnByValue`, promises awaited).
    func evaluate(_ expression: String, session: String) async throws -> JSONValue {
        let result = try await call(
            "Runtime.evaluate",
            ["expression": .string(expression), "returnByValue": true, "awaitPromise": true],
            session: session
        )
        if let exception = result["exceptionDetails"] {
            throw ProtocolError(description: "\(expression): \((try? exception.serializedString()) ?? "exception")")
        }
        return result["result"]?["value"] ?? .null
    }

    // MARK: - Private Functions

    /// Reads NUL-terminated replies until the pipe ends, handing each to its caller; events are dropped.
    private func readReplies() {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(replies, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            pending.append(contentsOf: buffer[0..<count])
            while let end = pending.firstIndex(of: 0) {
                let text = Array(pending[..<end])
                pending.removeSubrange(...end)
                guard let message = try? JSONParser(maxDepth: 512).parse(text), let id = message["id"]?.intValue
                else { continue }
                let waiting = state.withLock { state in
                    let continuation = state.waiting.removeValue(forKey: Int(id))
                    if continuation == nil { state.early[Int(id)] = message }
                    return continuation
                }
                waiting?.resume(returning: message)
            }
        }
        close(replies)
        let waiting = state.withLock { state in
            state.ended = true
            defer { state.waiting.removeAll() }
            return Array(state.waiting.values)
        }
        for continuation in waiting { continuation.resume(throwing: ProtocolError(description: "the browser ended")) }
    }
}
