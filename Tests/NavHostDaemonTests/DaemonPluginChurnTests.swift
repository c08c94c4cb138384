import Foundation
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Synchronization
import Testing

/// Plugins dropped, replaced and removed while one client watches and another sends intents in a loop.
@Suite("Plugin changes under a watching client and a sending one")
struct DaemonPluginChurnTests {
    @Test("No client is disconnected, every intent is answered, and every answer is the screen as it then was")
    func churnUnderLoad() async throws {
        let directory = try TestPlugins.copies(of: ["Settings", "UserProfile", "Products"])
        let daemon = try await DaemonProcess.start(plugins: directory, sessions: ["main=products.list"])
        let nav = try await NavigationClient.connect(to: daemon)
        let start = try await nav.snapshot()
        let screen = try #require(start["stack"]?.arrayValue?.first?["id"]?.stringValue)
        let watcherConnection = try await NavigationClient.connect(to: daemon)
        let session = WatchRecorder(watcherConnection.watch(resumeFrom: start["revision"]?.intValue))
        let plugins = try await PluginsWatch.start(on: daemon)
        let sender = IntentLoop(client: nav, screen: screen)
        let sending = Task { try await sender.run() }

        try await Task.sleep(for: .milliseconds(200))
        try PluginFolder.deploy("Home", into: directory)
        #expect(try await plugins.outcome(of: "Home")["kind"] == "loaded")
        for version in ["1.1.0", "1.2.0", "1.3.0"] {
            try PluginFolder.deploy("Products", into: directory, version: version)
            let event = try await plugins.outcome(of: "Products")
            #expect(event["kind"] == "reloaded")
            #expect(event["version"]?.stringValue == version)
            try await Task.sleep(for: .milliseconds(100))
        }
        try FileManager.default.removeItem(atPath: "\(directory)/Home")
        #expect(try await plugins.outcome(of: "Home")["kind"] == "removed")
        try await Task.sleep(for: .milliseconds(200))
        sender.stop()
        // An answer that never comes fails the test instead of hanging it: closing the connection ends the wait.
        let answers = try await withTimeout(.seconds(30), "the intent loop's last answer") {
            try await withTaskCancellationHandler {
                try await sending.value
            } onCancel: {
                Task { try? await nav.close() }
            }
        }

        #expect(answers.count >= 20, "the loop ran through the changes: \(String(answers.count)) intents")
        #expect(answers.allSatisfy { $0.screenID == screen }, "every intent answered by the screen it was sent to")
        let lastRevision = try #require(answers.last?.revision)
        _ = try await session.next {
            ($0["event"]?["revision"]?.intValue ?? $0["snapshot"]?["revision"]?.intValue ?? 0) >= lastRevision
        }
        let history = ScreenHistory(session.replies, screen: screen)
        #expect(history.replacedRevisions.count == 3, "one replaced event per new build")
        for answer in answers {
            #expect(
                history.state(at: answer.revision) == answer.state,
                "the answer at revision \(String(answer.revision)) shows the screen as watchers saw it then"
            )
        }
        try await nav.call("Send", ["intent": "onChangedFilter", "arguments": ["text": "engine"]])
        _ = try await session.next { $0["event"]?["kind"] == "stateChanged" }
        try PluginFolder.deploy("Home", into: directory)
        #expect(
            try await plugins.outcome(of: "Home")["kind"] == "loaded",
            "the plugin watcher is still there"
        )
        try await daemon.terminate()
    }
}

// MARK: - Support

extension PluginsWatch {
    /// The next event of the plugin `name` that is not `checked`: the outcome of a change of its folder. A `checked` of
    /// the build just taken may come after that build's own event (the watcher saw the folder change again, in a
    /// later batch, and checked it), under load after the next change has begun.
    fileprivate func outcome(of name: String) async throws -> JSONValue {
        try await event { $0["name"]?.stringValue == name && $0["kind"] != "checked" }
    }
}

/// Sends `onChangedFilter` (each with a new text) and `onTappedRetry` to one screen in turn, and keeps every answer.
private final class IntentLoop: Sendable {
    struct Answer: Sendable {
        var text: String
        var revision: Int64
        var screenID: String?
        var state: JSONValue?
    }

    private let client: NavigationClient
    private let screen: String
    private let stopped = Mutex(false)

    init(client: NavigationClient, screen: String) {
        self.client = client
        self.screen = screen
    }

    func stop() { stopped.withLock { $0 = true } }

    /// Sends until stopped; any failed Send ends the loop with its error.
    func run() async throws -> [Answer] {
        var answers: [Answer] = []
        while !stopped.withLock({ $0 }) {
            let text = "q\(answers.count)"
            // Every other intent reloads the catalog, which suspends the ViewModel: a reload can land mid-intent.
            let reply = try await client.call(
                "Send",
                answers.count.isMultiple(of: 2)
                    ? ["screen": .string(screen), "intent": "onChangedFilter", "arguments": ["text": .string(text)]]
                    : ["screen": .string(screen), "intent": "onTappedRetry"]
            )
            answers.append(
                Answer(
                    text: text,
                    revision: reply["revision"]?.intValue ?? -1,
                    screenID: reply["screen"]?["id"]?.stringValue,
                    state: reply["screen"]?["state"]
                )
            )
        }
        return answers
    }
}

/// One screen's state at each revision, from a session's Watch replies.
private struct ScreenHistory {
    private var states: [(revision: Int64, state: JSONValue?)] = []
    private(set) var replacedRevisions: [Int64] = []

    init(_ replies: [JSONObject], screen: String) {
        for reply in replies {
            if let snapshot = reply["snapshot"] {
                let state = snapshot["stack"]?.arrayValue?.first { $0["id"]?.stringValue == screen }?["state"]
                states.append((snapshot["revision"]?.intValue ?? 0, state))
            } else if let event = reply["event"], let revision = event["revision"]?.intValue {
                switch event["kind"]?.stringValue {
                case "stateChanged" where event["screenID"]?.stringValue == screen:
                    states.append((revision, event["state"]))
                case "replaced":
                    replacedRevisions.append(revision)
                    let state = event["stack"]?.arrayValue?.first { $0["id"]?.stringValue == screen }?["state"]
                    states.append((revision, state))
                default:
                    continue
                }
            }
        }
    }

    /// The state the watcher saw at `revision`.
    func state(at revision: Int64) -> JSONValue? {
        states.last { $0.revision <= revision }?.state
    }
}
