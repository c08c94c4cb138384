internal import NavHostClient
internal import NavHostJSON

// MARK: - InspectorSessionFeed

/// Follows one session for the inspector: its document and one merge patch per revision (`Watch` with
/// `"changes": "merge-patch"`), each kept in the session's timeline and pushed to the pages.
struct InspectorSessionFeed: Sendable {
    /// The session followed.
    let session: String
    /// Where the watch is opened from; the watch has a connection of its own.
    let client: NavHostClient
    /// Where what it sees goes.
    let hub: InspectorHub

    // MARK: - Lifecycle

    /// Follows the session until its watch ends (the session closes, the daemon goes away) or the task is
    /// cancelled, then tells the hub the session is gone.
    func run() async {
        do {
            var document = SessionDocument()
            for try await update in try await client.watchDocument(session: session) {
                document.apply(update)
                let entry = Self.entry(for: update, revision: document.revision ?? 0)
                await hub.sessionMoved(session, document: document.value, entry: entry)
            }
        } catch {
            // SessionNotFound, WatcherTooSlow or a lost connection all end this feed; the session list poll starts
            // a new one if the session is still there.
        }
        await hub.sessionEnded(session)
    }

    // MARK: - Public Functions

    /// The timeline entry for one update of a document watch.
    static func entry(for update: SessionDocumentUpdate, revision: Int64) -> InspectorTimeline.Entry {
        switch update {
        case .document(let document, coalesced: false):
            InspectorTimeline.Entry(revision: revision, kind: .document, change: document)
        case .document(let document, coalesced: true):
            InspectorTimeline.Entry(revision: revision, kind: .coalesced, change: document)
        case .patch(let patch):
            InspectorTimeline.Entry(revision: revision, kind: .patch, change: patch)
        }
    }
}
