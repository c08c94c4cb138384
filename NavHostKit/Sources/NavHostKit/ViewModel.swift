public import Observation

/// A screen's presentation logic: the seeds' `@Observable` ViewModel, without the view.
///
/// A ViewModel exposes one `private(set) var state` that front ends receive as JSON, handles the user's intents,
/// and navigates through the ``Router`` it was given in `init`. It holds no business rules: those live in use cases.
///
/// ```swift
/// @MainActor
/// @Observable
/// final class ProductsViewModel: ViewModel {
///     private(set) var state: LoadingState<[Product]> = .idle
///     ...
///     func onAppear() async { await loadProducts() }
///     func handle(_ intent: Intent) async { ... }
/// }
/// ```
///
/// ## Why the whole type is `@MainActor`
///
/// NavHost runs every ViewModel and the Router on one serial executor, the main actor, so that the order of
/// navigation and state changes is the order clients see. The seeds differ on where `@MainActor` goes (per method
/// in the newest, on the class in older ones); NavHost puts it on the protocol, so a ViewModel's state is only ever
/// touched there. Use cases are `async` and run wherever they like; while one is suspended, other intents go on.
///
/// ## State changes
///
/// The daemon observes `state` with the Observation framework. Every mutation made in one synchronous stretch
/// (between two suspension points) becomes one revision of the session.
///
/// A ViewModel without state (the seeds' stateless pattern) leaves `State` as ``NoState``; one without intents
/// leaves `Intent` as ``NoIntent``.
@MainActor
public protocol ViewModel: AnyObject, Observable {
    /// What front ends see of the screen. Encoded to JSON after every change.
    ///
    /// A state equal (`==`) to the one encoded last is not encoded again: `==` must compare everything `encode(to:)`
    /// writes, as a synthesized conformance does.
    associatedtype State: Encodable & Equatable = NoState
    /// What the user can do on the screen. See ``ViewModelIntent`` for the wire form.
    associatedtype Intent: ViewModelIntent = NoIntent

    /// The screen's current state.
    var state: State { get }

    /// Called once the screen is on the stack. Start loading here.
    func onAppear() async

    /// Called when the screen leaves the stack, before its work in flight is cancelled.
    func onDisappear()

    /// Handles one intent sent by a front end.
    ///
    /// - Throws: Only for a failure the front end should see as a failed call (`IntentFailed`); most failures
    ///   belong in `state` instead, as the seeds do with `LoadingState.error`.
    func handle(_ intent: Intent) async throws
}

extension ViewModel {
    public func onAppear() async {}
    public func onDisappear() {}
}

extension ViewModel where State == NoState {
    public var state: NoState { NoState() }
}

extension ViewModel where Intent == NoIntent {
    public func handle(_ intent: NoIntent) async {}
}

/// The state of a ViewModel that has none; it encodes as `{}`.
public struct NoState: Encodable, Equatable, Sendable {
    public init() {}
    public func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: NoKeys.self)
    }
    private enum NoKeys: CodingKey {}
}

/// A ViewModel that keeps part of its state across a daemon restart or a plugin reload.
///
/// After a crash, or when a new build of the plugin replaces the old one, the daemon rebuilds the screen on the
/// same route and hands the new ViewModel what the old one saved. If decoding fails, the screen starts fresh on its
/// route, after a reload and after a restart alike; the screens above it stay.
public protocol RestorableViewModel: ViewModel {
    /// What survives: keep it small, and keep old versions decodable.
    ///
    /// Make it `Equatable` as well when you can: the daemon then encodes it again only when it differs (`==`) from the
    /// one encoded last, instead of after every intent. Its `==` must compare everything `encode(to:)` writes.
    associatedtype RestorableState: Codable

    /// The state to keep; read after every change.
    var restorableState: RestorableState { get }

    /// Takes back state saved earlier, before ``ViewModel/onAppear()`` is called.
    func restore(from saved: RestorableState)
}
