import NavHostJSON
public import NavHostWire

// The flight recorder: a session's last calls saved as a recording, and a recording replayed (docs/recording.md).

extension NavHostClient {
    /// The session's flight recording (`Recording`): its base stack and its last calls, each with its outcome and
    /// the stack it left. `try recording.jsonLines()` is the `.navrec` file `navctl record` writes.
    ///
    /// - Throws: `SessionNotFound`, or `PermissionDenied` for a client that may not control.
    public func recording(session: String? = nil) async throws(NavHostClientError) -> SessionRecording {
        let method = Self.method("Recording")
        let reply = try await call(method, SessionParameters(session: session).jsonObject, as: RecordingReply.self)
        do {
            return try SessionRecording(jsonValue: reply.recording)
        } catch {
            throw NavHostClientError(
                code: .protocolViolation,
                message: "the recording in the reply does not read: \(error)"
            )
        }
    }

    /// Replays `recording` in a fresh session (`Replay`) and reports the first call whose result differs, or none.
    ///
    /// ```swift
    /// let report = try await client.replay(try SessionRecording(jsonLines: text))
    /// print(report.isIdentical ? "identical" : "differs at revision \(report.difference!.revision)")
    /// ```
    ///
    /// - Parameters:
    ///   - session: The replaying session's name; the daemon picks a free `replay-N` when `nil`.
    ///   - to: Stop after the calls up to this recorded revision and leave the session open for inspection.
    /// - Throws: `InvalidRecording`, `SessionExists`, `RouteNotFound` (the base's root is not offered),
    ///   `StorageFailed`, or `PermissionDenied`.
    public func replay(
        _ recording: SessionRecording,
        session: String? = nil,
        to: UInt64? = nil
    ) async throws(NavHostClientError) -> ReplayReport {
        let value: JSONValue
        do {
            value = try recording.jsonValue
        } catch {
            throw NavHostClientError(code: .protocolViolation, message: "the recording does not encode: \(error)")
        }
        let parameters = ReplayParameters(recording: value, session: session, to: to)
        return try await call(Self.method("Replay"), parameters.jsonObject, as: ReplayReport.self)
    }
}
