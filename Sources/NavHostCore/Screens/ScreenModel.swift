import NavHostJSON
import NavHostKit
import Observation

/// A ViewModel of any type, behind the few operations the core needs.
///
/// Built once per screen by opening the `any ViewModel` a feature returns; every closure keeps the concrete type.
@MainActor
struct ScreenModel {
    /// The ViewModel itself, kept so the screen owns it.
    let viewModel: any ViewModel
    /// Encodes the current `state` as JSON.
    let encodeState: @MainActor () throws -> JSONValue
    /// Decodes and handles one intent.
    let handle: @MainActor (IntentMessage) async throws -> Void
    /// Reads `state` under observation; `onChange` fires once at the next mutation.
    let trackState: @MainActor (_ onChange: @escaping @Sendable () -> Void) -> Void
    /// Encodes the restorable state, or `nil` when the ViewModel keeps none.
    let encodeRestorableState: @MainActor () throws -> JSONValue?
    /// Hands back restorable state saved earlier; `false` when it does not decode.
    let restoreState: @MainActor (JSONValue) -> Bool

    init(_ viewModel: any ViewModel) {
        self = Self.make(viewModel)
    }

    private static func make<VM: ViewModel>(_ viewModel: VM) -> ScreenModel {
        // Cast once, here: the session reads the restorable state after every intent, and a cast to
        // `any RestorableViewModel` is a conformance look-up in the runtime each time.
        let restorableAccess = restorable(viewModel)
        return ScreenModel(
            viewModel: viewModel,
            encodeState: { try wrappedAsObject(JSONValueEncoder().encode(viewModel.state)) },
            handle: { message in
                let intent = try message.decode(as: VM.Intent.self)
                try await viewModel.handle(intent)
            },
            trackState: { onChange in
                withObservationTracking {
                    _ = viewModel.state
                } onChange: {
                    onChange()
                }
            },
            encodeRestorableState: { try restorableAccess?.encode() },
            restoreState: { saved in restorableAccess?.restore(saved) ?? false }
        )
    }

    private init(
        viewModel: any ViewModel,
        encodeState: @escaping @MainActor () throws -> JSONValue,
        handle: @escaping @MainActor (IntentMessage) async throws -> Void,
        trackState: @escaping @MainActor (@escaping @Sendable () -> Void) -> Void,
        encodeRestorableState: @escaping @MainActor () throws -> JSONValue?,
        restoreState: @escaping @MainActor (JSONValue) -> Bool
    ) {
        self.viewModel = viewModel
        self.encodeState = encodeState
        self.handle = handle
        self.trackState = trackState
        self.encodeRestorableState = encodeRestorableState
        self.restoreState = restoreState
    }
}

/// Clients see a screen's state as a JSON object; a state that encodes as anything else is wrapped as `{"value": …}`.
private func wrappedAsObject(_ state: JSONValue) -> JSONValue {
    if case .object = state { return state }
    return ["value": state]
}

// MARK: - Restorable state

/// The restorable-state operations of a ViewModel that adopts `RestorableViewModel`.
@MainActor
private struct RestorableAccess {
    let encode: @MainActor () throws -> JSONValue
    let restore: @MainActor (JSONValue) -> Bool
}

@MainActor
private func restorable(_ viewModel: some ViewModel) -> RestorableAccess? {
    guard let restorable = viewModel as? any RestorableViewModel else { return nil }
    return access(restorable)
}

@MainActor
private func access<VM: RestorableViewModel>(_ viewModel: VM) -> RestorableAccess {
    RestorableAccess(
        encode: { try JSONValueEncoder().encode(viewModel.restorableState) },
        restore: { saved in
            guard let state = try? JSONValueDecoder().decode(VM.RestorableState.self, from: saved) else {
                return false
            }
            viewModel.restore(from: state)
            return true
        }
    )
}
