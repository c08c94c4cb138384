/// The way back to a main-actor object for what may outlive it (a closure, a task, a handle): the object while it
/// lives, `nil` once it is gone. Stands in for a weak reference to it.
///
/// Why not `weak`: the first weak reference to an object gives it a side table for good, and from then on every
/// retain and release of that object takes the runtime's slow path (about 75 instructions against 22). A screen, its
/// session and the registry are retained several times in every call (docs/performance-log.md, "Session 53").
///
/// The owner makes its backlink, points it at itself at the end of its `init` (``point(to:)``), holds it, and clears
/// it (``clear()``) in its `deinit`. ``owner`` is `unowned(unsafe)`: no reference
/// count, no side table. It is safe because of when it is read and cleared: only on the main actor, where the owner
/// (a main-actor object whose last reference is let go on the main actor) is cleared by its `deinit` before its
/// memory goes, so a read either finds it alive or finds `nil`.
final class Backlink<Owner: AnyObject>: @unchecked Sendable {
    /// The owner, or `nil` once it is gone. Read on the main actor only.
    @MainActor var owner: Owner? { unsafeOwner }

    // Unchecked Sendable: written by the owner's `init` (before anything else holds the backlink) and `deinit`, read on
    // the main actor (``owner``).
    private unowned(unsafe) var unsafeOwner: Owner?

    init() {}

    /// Points the backlink at its owner, at the end of the owner's `init`.
    func point(to owner: Owner) {
        unsafeOwner = owner
    }

    /// Drops the way back: the owner is going (its `deinit`).
    func clear() {
        unsafeOwner = nil
    }
}
