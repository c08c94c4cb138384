/// The way back to a main-actor object for what may outlive it (a closure, a task, a handle): the object while it
/// lives, `nil` once it is gone. Stands in for a weak reference to it.
///
/// Why not `weak`: the first weak reference to an object gives it a side table for good, and from then on every
/// retain and release of that object takes the runtime's slow path (about 75 instructions against 22). A screen, its
/// session and the registry are retained several times in every call (docs/performance-log.md, "Session 53").
///
/// The owner makes its backlink, points it at itself at the end of its `init` (``point(to:)``), holds it, and clears
/// it (``clear()``) in its `deinit`. ``owner`` is `unowned(unsafe)`: no reference count, no side table. It is safe
/// because of when it is read and cleared: both on the main actor, where the owner's `deinit` clears it before the
/// owner's memory goes, so a read either finds the owner alive or finds `nil`.
///
/// The rule that makes it so: **an owner is let go on the main actor**, its last reference dropped there (the daemon's
/// `Daemon.run()` is on the main actor for that). A `deinit` on another thread would run while a main-actor task reads
/// the backlink and may take a pointer to an object being freed; a weak reference was atomic, this is not. An
/// `isolated deinit` on an owner would not help (its count has reached zero before the hop); on a type that holds one
/// (`NavigationHandlers`, `PluginControl`, `DaemonCore`, `FeatureTestHost`) it is how the rule is kept. Debug builds
/// check the rule in ``clear()``, so any test that lets an owner go elsewhere traps rather than races.
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

    /// Drops the way back: the owner is going (its `deinit`). Debug builds trap when that is not on the main actor.
    func clear() {
        #if DEBUG
            MainActor.assertIsolated("\(Owner.self) let go off the main actor, where its backlink is read")
        #endif
        unsafeOwner = nil
    }
}
