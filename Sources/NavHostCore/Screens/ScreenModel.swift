import NavHostJSON
import NavHostKit
import Observation

/// A ViewModel of any type, behind the few operations the core needs.
///
/// Built once per screen by opening the `any ViewModel` a feature returns; every closure keeps the concrete type.
///
/// A class: each intent's task takes the model along (`Screen.startIntentTask`), where a copy of a struct of the
/// ViewModel and seven closures cost a retain of each (the copy 271 instructions per intent, callgrind).
@MainActor
final class ScreenModel {
    /// The ViewModel itself, kept so the screen owns it.
    let viewModel: any ViewModel
    /// Encodes the current `state` as JSON, and remembers it as the state clients were last given.
    let encodeState: @MainActor () throws -> JSONValue
    /// Encodes the current `state` as ``encodeState`` does, unless it equals (`==`) the state last encoded: `nil`
    /// then, with no encoding.
    let encodeStateIfChanged: @MainActor () throws -> JSONValue?
    /// Decodes and handles one intent.
    let handle: @MainActor (IntentMessage) async throws -> Void
    /// Reads `state` under observation; `onChange` fires once at the next mutation.
    let trackState: @MainActor (_ onChange: @escaping @Sendable () -> Void) -> Void
    /// Encodes the restorable state, or `nil` when the ViewModel keeps none.
    let encodeRestorableState: @MainActor () throws -> EncodedRestorableState?
    /// Hands back restorable state saved earlier; throws why not when the ViewModel keeps none or it does not decode.
    let restoreState: @MainActor (JSONValue) throws -> Void
    /// The names of the intents the ViewModel takes (its `Intent`'s `names`), read only when an intent is refused.
    let intentNames: @MainActor () -> [String]

    /// The model of `viewModel`.
    static func of(_ viewModel: any ViewModel) -> ScreenModel {
        make(viewModel)
    }

    private static func make<VM: ViewModel>(_ viewModel: VM) -> ScreenModel {
        // Cast once, here: the session reads the restorable state after every intent, and a cast to
        // `any RestorableViewModel` is a conformance look-up in the runtime each time.
        let restorableAccess = restorable(viewModel)
        // Most intents leave the state as it was, or set it to an equal value: comparing the typed state costs far
        // less than encoding it to compare the JSON (2,100 instructions per steady catalog intent, callgrind).
        var encodedState = viewModel.state
        return ScreenModel(
            viewModel: viewModel,
            encodeState: {
                encodedState = viewModel.state
                return try wrappedAsObject(JSONValueEncoder().encode(encodedState))
            },
            encodeStateIfChanged: {
                let current = viewModel.state
                guard current != encodedState else { return nil }
                encodedState = current
                return try wrappedAsObject(JSONValueEncoder().encode(current))
            },
            handle: { message in
                let intent: VM.Intent
                do throws(IntentError) {
                    intent = try message.decode(as: VM.Intent.self)
                } catch {
                    throw IntentNotDelivered(refusal: error)
                }
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
            restoreState: { saved in
                guard let restorableAccess else { throw KeepsNoRestorableState() }
                try restorableAccess.restore(saved)
            },
            intentNames: { VM.Intent.names }
        )
    }

    private init(
        viewModel: any ViewModel,
        encodeState: @escaping @MainActor () throws -> JSONValue,
        encodeStateIfChanged: @escaping @MainActor () throws -> JSONValue?,
        handle: @escaping @MainActor (IntentMessage) async throws -> Void,
        trackState: @escaping @MainActor (@escaping @Sendable () -> Void) -> Void,
        encodeRestorableState: @escaping @MainActor () throws -> EncodedRestorableState?,
        restoreState: @escaping @MainActor (JSONValue) throws -> Void,
        intentNames: @escaping @MainActor () -> [String]
    ) {
        self.viewModel = viewModel
        self.encodeState = encodeState
        self.encodeStateIfChanged = encodeStateIfChanged
        self.handle = handle
        self.trackState = trackState
        self.encodeRestorableState = encodeRestorableState
        self.restoreState = restoreState
        self.intentNames = intentNames
    }
}

/// Clients see a screen's state as a JSON object; a state that encodes as anything else is wrapped as `{"value": …}`.
private func wrappedAsObject(_ state: JSONValue) -> JSONValue {
    if case .object = state { return state }
    return ["value": state]
}

// MARK: - Restorable state

/// A screen's restorable state as JSON, numbered: two encodings of the same screen with the same ``version`` hold the
/// same JSON, so a session can tell that nothing durable changed without comparing it.
///
/// A class: it is read after every intent, and a copy of a struct holding the SDK's `JSONValue` (resilient, its
/// layout unknown here) goes through its value witnesses.
final class EncodedRestorableState: Sendable {
    let json: JSONValue
    /// Counts the different JSON forms the screen's restorable state has had, from 1.
    let version: UInt64

    init(json: JSONValue, version: UInt64) {
        self.json = json
        self.version = version
    }
}

/// The restorable-state operations of a ViewModel that adopts `RestorableViewModel`.
@MainActor
private struct RestorableAccess {
    let encode: @MainActor () throws -> EncodedRestorableState
    let restore: @MainActor (JSONValue) throws -> Void
}

/// Why a screen took no saved state: its ViewModel keeps none (its build no longer adopts `RestorableViewModel`).
private struct KeepsNoRestorableState: Error, CustomStringConvertible {
    var description: String { "the ViewModel keeps no restorable state" }
}

@MainActor
private func restorable(_ viewModel: some ViewModel) -> RestorableAccess? {
    guard let restorable = viewModel as? any RestorableViewModel else { return nil }
    return access(restorable)
}

@MainActor
private func access<VM: RestorableViewModel>(_ viewModel: VM) -> RestorableAccess {
    // The session reads the restorable state after every intent, to save it when it changed; it rarely has. A
    // restorable state that is `Equatable` is encoded again only when it differs from the one encoded last (encoding
    // the catalog's one-member state cost about 5,600 instructions per intent, callgrind).
    let isEqual = equality(of: VM.RestorableState.self)
    var encodedState = viewModel.restorableState
    var encoded: EncodedRestorableState?
    return RestorableAccess(
        encode: {
            let current = viewModel.restorableState
            if let encoded, let isEqual, isEqual(current, encodedState) { return encoded }
            let json = try JSONValueEncoder().encode(current)
            encodedState = current
            // A state that is not `Equatable`, or differs but encodes the same, keeps its number.
            if let encoded, encoded.json == json { return encoded }
            let next = EncodedRestorableState(json: json, version: (encoded?.version ?? 0) + 1)
            encoded = next
            return next
        },
        restore: { saved in
            viewModel.restore(from: try JSONValueDecoder().decode(VM.RestorableState.self, from: saved))
        }
    )
}

/// `==` for values of `type`, when it is `Equatable`; `nil` otherwise. Looked up once per screen.
private func equality<Value>(of type: Value.Type) -> (@Sendable (Value, Value) -> Bool)? {
    guard let equatable = type as? any Equatable.Type else { return nil }
    return equality(opening: equatable) as? @Sendable (Value, Value) -> Bool
}

private func equality<Value: Equatable>(opening type: Value.Type) -> Any {
    { @Sendable (first: Value, second: Value) -> Bool in first == second }
}

/// An intent the ViewModel never saw: its name or arguments do not fit its `Intent` (the SDK's decoding refused it).
/// Told apart from an `IntentError` the ViewModel throws itself, which may follow changes it made.
struct IntentNotDelivered: Error {
    let refusal: IntentError
}
