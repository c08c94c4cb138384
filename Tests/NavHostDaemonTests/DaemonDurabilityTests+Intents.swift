import Foundation
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

// What an intent answered `IntentTimedOut` did before the time ran out, the feature-store write it had under way then
// included: each holds after a kill -9 right after the error. The `Faulty` fixture's slow write takes half a second,
// so a reply that did not wait for it is followed by the kill long before it lands.

extension DaemonDurabilityTests {
    @Test(
        "A Send answered IntentTimedOut keeps what its intent did before the time ran out, a store write under way then included, across kill -9 right after the error"
    )
    func timedOutSendsKeepWhatTheyDid() async throws {
        let daemon = try await DaemonProcess.start(
            plugins: try await TestPlugins.directory(fixtures: ["FaultPlugin"]),
            sessions: ["main=faulty.main"],
            extraArguments: ["--intent-timeout", "200ms"]
        )
        var nav = try await NavigationClient.connect(to: daemon)
        var lost: [String] = []
        let rounds = 6
        for round in 0..<rounds {
            _ = try await nav.call("Replace", ["routes": [["route": "faulty.main"]]])
            // Opens a screen, or sets the restorable note, and waits past the limit; or writes the store with a
            // write that takes longer than the limit (the time runs out with it under way).
            let text = "t\(round)"
            let (intent, arguments): (String, JSONValue) =
                switch round % 3 {
                case 0: ("onTappedOpenThenHang", [:])
                case 1: ("onChangedNoteThenHang", ["text": .string(text)])
                default: ("onChangedSavedSlowly", ["text": .string(text)])
                }
            let failure = await #expect(throws: VarlinkError.self) {
                try await nav.call("Send", ["intent": .string(intent), "arguments": arguments])
            }
            #expect(failure?.name == "io.navhost.Navigation.IntentTimedOut", "\(String(describing: failure))")
            try await daemon.crash()
            try await daemon.restart()
            nav = try await NavigationClient.connect(to: daemon)
            switch round % 3 {
            case 0:
                let routes = try await nav.routes()
                if routes != ["faulty.main", "faulty.main"] {
                    lost.append("round \(round): the screen the timed-out intent opened is gone: \(routes)")
                }
            case 1:
                let note = try await nav.topState()["note"]
                if note != .string(text) {
                    lost.append("round \(round): the note \(text) the timed-out intent set is gone: \(note ?? .null)")
                }
            default:
                let saved = try Self.storedValue("saved", of: "Faulty", in: daemon)
                if saved != .string(text) {
                    lost.append("round \(round): \(text), under way at the time-out, is not stored: \(saved ?? .null)")
                }
            }
        }
        print("durability of timed-out Sends: \(rounds) IntentTimedOut replies, \(rounds) kills, \(lost.count) lost")
        #expect(lost.isEmpty, "\(lost)")
        try await daemon.terminate()
    }

    /// The value stored under `key` in the store file of feature `feature`; `nil` when the file or the key is not
    /// there.
    static func storedValue(_ key: String, of feature: String, in daemon: DaemonProcess) throws -> JSONValue? {
        let path = "\(daemon.stateDirectory)/store/\(feature).json"
        guard let bytes = FileManager.default.contents(atPath: path) else { return nil }
        return try JSONParser().parse(Array(bytes))[key]
    }
}
