import Foundation
import IntegrationHarness
import NavHostClient
import NavHostJSON
import NavHostKit
import NavHostVarlink
import NavHostWire
import Synchronization
import Testing

/// `Watch` with `"changes": "merge-patch"` against the real daemon and the example plugins: the patches a client
/// applies give exactly the document a new watch starts with.
@Suite(
    "A session followed as merge patches",
    .enabled(if: DaemonProcess.examplePluginsAreStaged, "needs the example plugins staged by the build")
)
struct DaemonDocumentWatchTests {
    @Test("Patches applied across 200 random navigations and intents end byte for byte at a fresh watch's document")
    func patchesFollowTheSession() async throws {
        try await DaemonClientTests.withDaemon(plugins: DaemonProcess.examplePlugins) { daemon, client in
            let watch = try await client.watchDocument()
            let held = DocumentHolder(watch)
            var random = SystemRandomNumberGenerator()
            var patches = 0
            for _ in 0..<200 {
                let stack = try await client.stack()
                let top = stack.top?.route.id
                switch (top, Int.random(in: 0..<8, using: &random)) {
                case ("products.list", 0...2):
                    let text = ["", "card", "engine", "moth", "zzz"].randomElement(using: &random)!
                    try await client.send("onChangedFilter", arguments: ["text": .string(text)])
                case ("products.list", 3):
                    let product = "p\(Int.random(in: 1...6, using: &random))"
                    try await client.send("onTappedProduct", arguments: ["productID": .string(product)])
                case ("settings.main", 0...2):
                    let isEnabled = Bool.random(using: &random)
                    try await client.send("onChangedNotificationsEnabled", arguments: ["isEnabled": .bool(isEnabled)])
                case (_, 4...5) where stack.stack.count > 1:
                    try await client.pop()
                case (_, 6) where stack.stack.count > 4:
                    try await client.popToRoot()
                case (_, 7):
                    try await client.replace(with: [RouteRequest(id: "home.main"), RouteRequest(id: "products.list")])
                default:
                    let route = ["products.list", "settings.main", "profile.user"].randomElement(using: &random)!
                    let parameters: JSONObject = route == "profile.user" ? ["userID": "u1"] : [:]
                    try await client.navigate(to: route, parameters: parameters)
                }
            }
            let final = try await client.stack()
            // Let the screens' own work (loading the catalog, a profile) settle into the last revision.
            var revision = final.revision
            for _ in 0..<100 {
                try await Task.sleep(for: .milliseconds(20))
                let now = try await client.stack().revision
                if now == revision { break }
                revision = now
            }
            // The watch has caught up with the session as it is then: on a loaded machine a screen's own work can
            // land after the settling above, and the revision move on.
            #expect(
                try await pollUntil { held.revision == Int64(try await client.stack().revision) },
                "patches up to the session's revision (\(revision) or later)"
            )
            patches = held.patchCount
            await watch.close()

            let fresh = try await VarlinkClient.connect(unixSocketPath: daemon.socketPath)
            let reply = try await fresh.call(
                "io.navhost.Navigation.Watch",
                parameters: ["changes": "merge-patch"]
            )
            try await fresh.close()
            let expected = try #require(reply["document"])
            #expect(try held.document.serializedString() == (try expected.serializedString()))
            #expect(patches >= 200, "one patch per revision at least: \(patches)")
        }
    }

    @Test("A patch names only what changed: one screen's state member, and the revision")
    func patchesAreSmall() async throws {
        try await DaemonClientTests.withDaemon(plugins: DaemonProcess.examplePlugins) { _, client in
            try await client.navigate(to: "products.list")
            let watch = try await client.watchDocument()
            let held = DocumentHolder(watch)
            #expect(try await pollUntil { held.document["stack"]?.arrayValue?.count == 2 })
            let loaded = try await client.stack()
            #expect(try await pollUntil { held.revision == Int64(loaded.revision) })
            let screen = try #require(loaded.top?.id.rawValue)

            let sent = try await client.send("onChangedFilter", arguments: ["text": "card"])

            #expect(try await pollUntil { held.revision == Int64(sent.revision) })
            let patch = try #require(held.lastPatch)
            #expect(patch["revision"] == .int(Int64(sent.revision)))
            #expect(patch.objectValue?.keys.sorted() == ["revision", "screens"], "\(patch)")
            #expect(patch["screens"]?.objectValue?.keys == [screen], "\(patch)")
            #expect(patch["screens"]?[screen]?["state"]?["value"]?["filter"] == "card", "\(patch)")
            #expect(patch["screens"]?[screen]?["route"] == nil, "unchanged members are left out: \(patch)")
            await watch.close()
        }
    }
}

// MARK: - Support

/// Reads a document watch in the background and applies every update, so a test can look at what it holds.
private final class DocumentHolder: Sendable {
    private struct Held {
        var document = SessionDocument()
        var patches = 0
        var lastPatch: JSONValue?
    }

    private final class Box: Sendable {
        let held = Mutex(Held())
    }

    private let box = Box()
    private let reader: Task<Void, Never>

    init(_ watch: NavHostDocumentWatch) {
        let box = self.box
        reader = Task {
            do {
                for try await update in watch {
                    box.held.withLock { held in
                        held.document.apply(update)
                        if case .patch(let patch) = update {
                            held.patches += 1
                            held.lastPatch = patch
                        }
                    }
                }
            } catch {}
        }
    }

    deinit { reader.cancel() }

    var document: JSONValue { box.held.withLock { $0.document.value } }
    var revision: Int64? { box.held.withLock { $0.document.revision } }
    var patchCount: Int { box.held.withLock { $0.patches } }
    var lastPatch: JSONValue? { box.held.withLock { $0.lastPatch } }
}
