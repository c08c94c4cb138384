public import NavHostJSON
import NavHostWire

// MARK: - Starting a document watch

extension NavHostClient {
    /// Follows a session as a document and merge patches (`Watch` with `"changes": "merge-patch"`): the session's
    /// document first, then one RFC 7386 merge patch per revision.
    ///
    /// ```swift
    /// var document = SessionDocument()
    /// for try await update in try await client.watchDocument() {
    ///     document.apply(update)                  // holds what a new watch would start with
    ///     print(document.revision ?? 0, update)   // each patch says exactly what changed
    /// }
    /// ```
    ///
    /// The document is keyed by screen and canonical (``SessionSnapshot/document``), so a patch names the screens
    /// and state members that changed, and nothing else. The watch has a connection of its own, as
    /// ``watch(session:resumeFrom:)``'s does.
    ///
    /// - Throws: ``NavHostClientError/Code/daemonUnreachable`` when the connection cannot be opened; error replies
    ///   (`SessionNotFound`, `WatcherTooSlow`) while iterating.
    public func watchDocument(session: String? = nil) async throws(NavHostClientError) -> NavHostDocumentWatch {
        let method = Self.method("Watch")
        return try await stream(
            WatchParameters(session: session, changes: .mergePatch).jsonObject,
            decoder: NavHostDocumentWatch.ReplyDecoder(method: method) { reply throws(NavHostClientError) in
                if let patch = reply["patch"], case .object = patch { return .patch(patch) }
                if let document = reply["document"], case .object = document {
                    return .document(document, coalesced: reply["coalesced"]?.boolValue ?? false)
                }
                throw NavHostClientError(
                    code: .protocolViolation,
                    message: "a reply to \(method) with merge patches has neither \"document\" nor \"patch\""
                )
            }
        )
    }
}

// MARK: - Updates

/// One reply of a document watch.
public enum SessionDocumentUpdate: Sendable, Hashable {
    /// The whole document; `coalesced` when it stands in for patches this client was too slow to take.
    case document(JSONValue, coalesced: Bool)
    /// What changed in one revision, as an RFC 7386 merge patch of the document.
    case patch(JSONValue)
}

/// The updates of a session watched as a document: the document, then one merge patch per revision.
public typealias NavHostDocumentWatch = NavHostStream<SessionDocumentUpdate>

/// A session's document as a document watch keeps it: apply every update, in order.
public struct SessionDocument: Sendable, Hashable {
    /// The document; `null` until the first update.
    public private(set) var value: JSONValue = .null

    /// An empty document, for a watch to fill.
    public init() {}

    /// The revision the document is at.
    public var revision: Int64? { value["revision"]?.intValue }

    /// Takes a whole document, or applies a patch.
    public mutating func apply(_ update: SessionDocumentUpdate) {
        switch update {
        case .document(let document, _): value = document
        case .patch(let patch): JSONMergePatch.apply(patch, to: &value)
        }
    }
}
