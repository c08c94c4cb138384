internal import NavHostClient
internal import NavHostJSON
internal import NavHostKit

// MARK: - InspectorControl

/// Carries out what the page asks over its websocket: send an intent to the top screen, or pop it.
///
/// Each request is a JSON object with an `id` the answer repeats and an `action`:
/// - `{"id":1,"action":"send","session":"main","screen":"s2","intent":"onChangedFilter","arguments":"text=engine"}`
///   (`arguments` as ``InspectorIntentArguments`` reads them);
/// - `{"id":2,"action":"pop","session":"main"}`.
///
/// Each one is an ordinary call on a connection of its own, made by this process: the daemon's access control
/// applies to it as to any other client of the user who started `navctl inspect`.
struct InspectorControl: Sendable {
    /// The daemon's socket.
    let socketPath: String

    // MARK: - Public Functions

    /// Carries out the request in `text` and returns the `result` message for the page.
    func handle(_ text: String) async -> JSONValue {
        guard let request = try? JSONParser().parse(text), request.objectValue != nil else {
            return InspectorMessage.result(id: .null, ok: false, message: "the request is not a JSON object")
        }
        let id = request["id"] ?? .null
        let session = request["session"]?.stringValue
        do {
            let message: String
            switch request["action"]?.stringValue {
            case "send":
                message = try await send(request, session: session)
            case "pop":
                let popped = try await NavHostClient.withConnection(socketPath: socketPath) { client in
                    try await client.pop(session: session)
                }
                message =
                    "revision \(popped.revision): popped \(popped.removed.map(\.rawValue).joined(separator: ", "))"
            default:
                return InspectorMessage.result(id: id, ok: false, message: "the action is neither send nor pop")
            }
            return InspectorMessage.result(id: id, ok: true, message: message)
        } catch {
            return InspectorMessage.result(id: id, ok: false, message: "\(error)")
        }
    }
}

// MARK: - Private Functions

private extension InspectorControl {
    func send(_ request: JSONValue, session: String?) async throws -> String {
        guard let intent = request["intent"]?.stringValue, !intent.isEmpty else {
            throw InspectorIntentArguments.Invalid(description: "choose an intent")
        }
        let arguments = try InspectorIntentArguments.parse(request["arguments"]?.stringValue ?? "")
        let screen = request["screen"]?.stringValue.map { ScreenID($0) }
        let sent = try await NavHostClient.withConnection(socketPath: socketPath) { client in
            try await client.send(intent, arguments: arguments, to: screen, session: session)
        }
        return "revision \(sent.revision): \(intent) handled"
    }
}
