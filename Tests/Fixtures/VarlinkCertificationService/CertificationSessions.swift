import Synchronization

/// The certification clients in progress: each must call the methods in order, Start to End.
final class CertificationSessions: Sendable {
    /// The methods of one certification run, in the order a client must call them.
    static let order = [
        "Start", "Test01", "Test02", "Test03", "Test04", "Test05", "Test06", "Test07", "Test08", "Test09", "Test10",
        "Test11", "End",
    ]

    private let nextMethod = Mutex<[String: String]>([:])

    /// Starts a run and returns its client ID.
    func start() -> String {
        var generator = SystemRandomNumberGenerator()
        let id = (0..<16).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
        nextMethod.withLock { $0[id] = "Test01" }
        return id
    }

    /// Whether `clientID` is a run in progress.
    func contains(_ clientID: String) -> Bool {
        nextMethod.withLock { $0[clientID] != nil }
    }

    /// Records that `clientID` called `method`; returns the method it should have called when that was out of order.
    func advance(_ clientID: String, calling method: String) -> String? {
        nextMethod.withLock { sessions in
            guard let expected = sessions[clientID] else { return "Start" }
            guard expected == method else { return expected }
            let index = Self.order.firstIndex(of: method)!
            sessions[clientID] = index + 1 < Self.order.count ? Self.order[index + 1] : nil
            return nil
        }
    }

    /// Ends a run, after its last call or after a failed check.
    func remove(_ clientID: String) {
        _ = nextMethod.withLock { $0.removeValue(forKey: clientID) }
    }
}
