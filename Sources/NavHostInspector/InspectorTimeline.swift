public import NavHostJSON

// MARK: - InspectorTimeline

/// The last revisions of one session as the inspector saw them, each with its diff: at most ``capacity`` entries,
/// the oldest dropped first.
///
/// A revision's diff is the RFC 7386 merge patch the daemon's `Watch` sent for it (`"changes": "merge-patch"`), so
/// keeping the patches is keeping the diffs. The first entry of a watch holds the whole document the watch began
/// with; a coalesced document (the inspector fell behind) stands in for the revisions it skipped.
public struct InspectorTimeline: Sendable, Hashable {
    /// What one entry holds.
    public enum Kind: String, Sendable, Hashable {
        /// The document a watch began with.
        case document
        /// One revision's merge patch.
        case patch
        /// A whole document standing in for revisions the inspector was too slow to take.
        case coalesced
    }

    /// One revision and what changed in it.
    public struct Entry: Sendable, Hashable {
        /// The revision the session reached.
        public var revision: Int64
        /// What ``change`` is.
        public var kind: Kind
        /// The merge patch, or the whole document for ``Kind/document`` and ``Kind/coalesced``.
        public var change: JSONValue

        /// Creates an entry.
        public init(revision: Int64, kind: Kind, change: JSONValue) {
            self.revision = revision
            self.kind = kind
            self.change = change
        }
    }

    // MARK: - Public Properties

    /// The most entries kept.
    public let capacity: Int
    /// The entries kept, oldest first.
    public private(set) var entries: [Entry] = []

    // MARK: - Initialization

    /// An empty timeline that keeps at most `capacity` entries (at least one).
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    // MARK: - Public Functions

    /// Adds `entry` as the newest, dropping the oldest entries beyond ``capacity``.
    public mutating func append(_ entry: Entry) {
        entries.append(entry)
        if entries.count > capacity {
            entries.removeFirst(entries.count - capacity)
        }
    }

    /// The entry for `revision`, while it is kept.
    public func entry(for revision: Int64) -> Entry? {
        entries.last { $0.revision == revision }
    }
}
