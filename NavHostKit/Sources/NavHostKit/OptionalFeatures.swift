public import Observation

/// The dependencies of a feature that are loaded now: `HostServices.optionalFeatures`.
///
/// A feature lists in its `plugin.json` the features it can work without (`"optional": true`); it loads whether they
/// are there or not, and learns here which of them are. Its hard dependencies are always in the set: it cannot be
/// loaded without them. The daemon keeps the set current while it runs: a feature
/// that arrives (its plugin dropped into the plugins folder) or leaves (its folder removed, `navctl plugins unload`)
/// changes it at once. A feature that is loaded in a version outside the range the manifest accepts counts as absent.
///
/// It is `@Observable`, so a ViewModel can read it directly in what it shows, or follow it from `onAppear` as the
/// seeds follow a repository:
///
/// ```swift
/// func onAppear() async {
///     following = Task { [weak self] in
///         for await present in optionalFeatures.changes() {
///             self?.state.tiles = HomeTile.allCases.filter { present.contains($0.feature) }
///         }
///     }
/// }
/// ```
///
/// Opening a route of an absent feature fails as any unknown route does, so check ``contains(_:)`` first.
///
/// - Since: NavHostKit 2.2.0.
@MainActor
@Observable
public final class OptionalFeatures: Sendable {
    // MARK: Public Properties

    /// The names of the dependencies loaded now, in an accepted version: every hard one and the optional ones there.
    public private(set) var present: Set<String>

    // MARK: Private Properties

    @ObservationIgnored private var followers: [Int: AsyncStream<Set<String>>.Continuation] = [:]
    @ObservationIgnored private var nextFollower = 0

    // MARK: Initialization

    /// Creates the set with `present` loaded: the daemon makes one per feature; a test makes its own and changes it
    /// with ``update(present:)``.
    public nonisolated init(present: Set<String> = []) {
        _present = present
    }

    // MARK: Public Functions

    /// Whether the dependency `feature` is loaded now.
    public func contains(_ feature: String) -> Bool {
        present.contains(feature)
    }

    /// The set now, then the new set each time a feature arrives or leaves, until the caller stops iterating (or
    /// its task is cancelled). A slow reader sees the latest set, never a stale queue.
    public func changes() -> AsyncStream<Set<String>> {
        let (stream, continuation) = AsyncStream.makeStream(of: Set<String>.self, bufferingPolicy: .bufferingNewest(1))
        let id = nextFollower
        nextFollower += 1
        followers[id] = continuation
        continuation.yield(present)
        continuation.onTermination = { [weak self] _ in
            Task { @MainActor in self?.followers[id] = nil }
        }
        return stream
    }

    /// Replaces the set, telling every follower when it changed. The daemon calls it as plugins come and go.
    public func update(present newValue: Set<String>) {
        guard newValue != present else { return }
        present = newValue
        for continuation in followers.values { continuation.yield(newValue) }
    }
}
