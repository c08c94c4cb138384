import NavHostClient

/// The arguments an intent takes, after the daemon refused the ones sent: `hint: the intent is
/// onChangedFilter(text: string)`. The daemon's error names the member that did not fit; the hint asks it for the
/// routes and shows the whole signature, as `navctl routes` does, so a missing, misspelt or extra argument and a value
/// of the wrong type are mended at once.
enum SignatureHint {
    /// A line for standard error after `error`, when it refused an intent's arguments and `client`'s daemon says what
    /// the intent takes (every signature, when screens of several routes have an intent of that name).
    static func line(after error: NavHostClientError, asking client: NavHostClient) async -> String? {
        guard error.code == .invalidIntentArguments, let intent = error.parameters["intent"]?.stringValue,
            let routes = try? await client.routes()
        else { return nil }
        var signatures: [String] = []
        for route in routes where route.intents.contains(intent) {
            let signature = route.signature(of: intent)
            if !signatures.contains(signature) { signatures.append(signature) }
        }
        guard !signatures.isEmpty else { return nil }
        return "hint: the intent is \(signatures.map { $0 == intent ? "\(intent)()" : $0 }.joined(separator: " or "))"
    }
}
