public import NavHostJSON

/// The intents a ViewModel handles: an enum, as in the seeds' MVVM+Intents pattern.
///
/// On the wire an intent is an object with a `name` (the case name) and, for a case with associated values,
/// `arguments` holding them by label:
///
/// ```json
/// {"name":"onTappedRetry"}
/// {"name":"onChangedFilter","arguments":{"text":"ab"}}
/// ```
///
/// ```swift
/// enum Intent: ViewModelIntent {
///     case onTappedRetry
///     case onChangedFilter(text: String)
///
///     static let names = ["onTappedRetry", "onChangedFilter"]
/// }
/// ```
///
/// Decoding uses the enum's synthesized `Decodable` conformance. ``names`` lists the cases, so that manifests and
/// the `Routes` call can tell front ends what a screen accepts; ``NavHostTesting`` checks it against the enum.
public protocol ViewModelIntent: Decodable, Sendable {
    /// Every case name, in the order front ends should show them.
    static var names: [String] { get }
}

/// The intent type of a ViewModel that accepts none.
public enum NoIntent: ViewModelIntent {
    public static var names: [String] { [] }
    public init(from decoder: any Decoder) throws {
        throw DecodingError.typeMismatch(
            NoIntent.self,
            .init(codingPath: [], debugDescription: "this screen accepts no intents")
        )
    }
}

/// An intent as it arrives on the wire, before it is decoded for a particular ViewModel.
public struct IntentMessage: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The intent's name, an enum case name like `onChangedFilter`.
    public var name: String
    /// The intent's arguments by label; empty for an intent without any.
    public var arguments: JSONObject

    public init(name: String, arguments: JSONObject = JSONObject()) {
        self.name = name
        self.arguments = arguments
    }

    private enum CodingKeys: String, CodingKey { case name, arguments }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        arguments = try container.decodeIfPresent(JSONObject.self, forKey: .arguments) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        if !arguments.isEmpty { try container.encode(arguments, forKey: .arguments) }
    }

    public var description: String {
        arguments.isEmpty ? name : "\(name) \(JSONValue.object(arguments))"
    }

    /// Decodes the typed intent this message stands for.
    ///
    /// - Throws: ``IntentError/unknownIntent(_:)`` when `I` has no case by that name,
    ///   ``IntentError/invalidArguments(intent:reason:)`` when the arguments do not fit it.
    public func decode<I: ViewModelIntent>(as type: I.Type) throws(IntentError) -> I {
        guard I.names.contains(name) else { throw IntentError.unknownIntent(name) }
        do {
            return try JSONValueDecoder().decode(I.self, case: name, arguments: arguments)
        } catch let error as JSONError {
            throw IntentError.invalidArguments(intent: name, reason: error.description)
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw IntentError.unknownIntent(name)
        } catch {
            throw IntentError.invalidArguments(intent: name, reason: "\(error)")
        }
    }
}

/// Why an intent could not be delivered to a ViewModel.
public enum IntentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The screen's ViewModel has no intent by this name.
    case unknownIntent(String)
    /// The intent exists but its arguments do not fit it.
    case invalidArguments(intent: String, reason: String)

    public var description: String {
        switch self {
        case .unknownIntent(let name): return "no intent \"\(name)\" on this screen"
        case .invalidArguments(let intent, let reason): return "bad arguments for \(intent): \(reason)"
        }
    }
}
