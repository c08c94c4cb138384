import Foundation
import IntegrationHarness
import NavHostJSON
import NavHostVarlink
import Testing

// Calls that reach the daemon together: a batch pipelined in one write, and a second client acting on a change a
// first one has not been answered for yet. Each answer holds after a kill -9 right after the last of them.

extension DaemonDurabilityTests {
    @Test("A batch of calls pipelined in one write, a oneway among them: every answered call holds after kill -9")
    func pipelinedBatchSurvivesKill() async throws {
        let daemon = try await DaemonProcess.start()
        var lost: [String] = []
        let rounds = 6
        for round in 0..<rounds {
            let setUp = try await NavigationClient.connect(to: daemon)
            _ = try await setUp.call("Replace", ["routes": [["route": "home.main"]]])
            let filter = "b\(round)"
            let batch: [(method: String, parameters: JSONObject, oneway: Bool)] = [
                ("Navigate", ["route": "products.list"], false),
                ("Send", ["intent": "onChangedFilter", "arguments": ["text": .string(filter)]], false),
                ("Navigate", ["route": "settings.main"], true),
                ("Pop", [:], false),
                ("Navigate", ["route": "products.detail", "parameters": ["productID": "p1"]], false),
            ]
            var text = ""
            for call in batch {
                var message: JSONObject = [
                    "method": .string("io.navhost.Navigation.\(call.method)"), "parameters": .object(call.parameters),
                ]
                if call.oneway { message["oneway"] = true }
                text += String(decoding: try JSONValue.object(message).serializedBytes(), as: UTF8.self) + "\0"
            }
            let socket = try await UnixStreamSocket.connect(to: daemon.socketPath)
            _ = await socket.write(text)
            let replies = try await socket.readMessages(batch.filter { !$0.oneway }.count)
            try await daemon.crash()
            socket.close()
            try await daemon.restart()

            let reader = try await NavigationClient.connect(to: daemon)
            let routes = try await reader.routes()
            if replies.contains(where: { $0.contains(#""error""#) }) {
                lost.append("round \(round): a call of the batch failed: \(replies)")
            }
            if routes != ["home.main", "products.list", "products.detail"] {
                lost.append("round \(round): the batch left \(routes)")
                continue
            }
            try await reader.call("Pop")
            try await Self.waitUntilLoaded(reader)
            if try await reader.topState()["value"]?["filter"] != .string(filter) {
                lost.append("round \(round): the filter \(filter) of the batch's Send is gone")
            }
        }
        print("durability of pipelined batches: \(rounds) batches, \(rounds) kills, \(lost.count) lost")
        #expect(lost.isEmpty, "\(lost)")
        try await daemon.terminate()
    }

    @Test("A client's Send to a screen another client pushed and has no answer for yet holds after kill -9")
    func sendOnAnotherClientsPendingPushSurvivesKill() async throws {
        let daemon = try await DaemonProcess.start()
        var lost: [String] = []
        let rounds = 8
        for round in 0..<rounds {
            let first = try await NavigationClient.connect(to: daemon)
            let second = try await NavigationClient.connect(to: daemon)
            _ = try await first.call("Replace", ["routes": [["route": "home.main"]]])
            // The first client's push is not waited for: its write may still be on its way to the disk when the
            // second client sees the screen and sends to it.
            let pushing = Task { try await first.call("Navigate", ["route": "products.list"]) }
            var top: JSONValue?
            let pushed = try await pollUntil {
                top = try await second.snapshot()["stack"]?.arrayValue?.last
                return top?["route"] == "products.list"
            }
            try #require(pushed, "the first client's push did not show")
            let screen = try #require(top?["id"]?.stringValue)
            let filter = "x\(round)"
            _ = try await second.call(
                "Send",
                ["screen": .string(screen), "intent": "onChangedFilter", "arguments": ["text": .string(filter)]]
            )
            try await daemon.crash()
            pushing.cancel()
            try await daemon.restart()

            let reader = try await NavigationClient.connect(to: daemon)
            let routes = try await reader.routes()
            if routes != ["home.main", "products.list"] {
                lost.append("round \(round): the screen the answered Send changed is gone: \(routes)")
                continue
            }
            try await Self.waitUntilLoaded(reader)
            if try await reader.topState()["value"]?["filter"] != .string(filter) {
                lost.append("round \(round): the filter \(filter) is gone")
            }
        }
        print("durability of a Send on another client's push: \(rounds) Sends, \(rounds) kills, \(lost.count) lost")
        #expect(lost.isEmpty, "\(lost)")
        try await daemon.terminate()
    }
}
