import NavHostClient

/// Prints a document watch's updates as JSON lines, as the `Watch` replies carry them.
struct DocumentRenderer: UpdateRenderer {
    func render(_ update: SessionDocumentUpdate) throws(NavHostClientError) {
        switch update {
        case .document(let document, coalesced: false): try JSONOutput.print(["document": document])
        case .document(let document, coalesced: true): try JSONOutput.print(["document": document, "coalesced": true])
        case .patch(let patch): try JSONOutput.print(["patch": patch])
        }
    }
}
