import NavHostJSON
import NavHostKit
import Testing

/// ``IntentMessage/decode(as:)`` reads the case from its name and arguments without building the object
/// `{name: arguments}` the synthesized `Decodable` reads it from: it must decode, and fail, as decoding that object
/// does.
@Suite("An intent decodes as the object {name: arguments} does")
struct IntentDecodingTests {
    enum Intent: ViewModelIntent, Equatable {
        case onTappedRetry
        case onChangedFilter(text: String)
        case select(index: Int, animated: Bool?)
        case move(_ from: Int, to: Int)

        static let names = ["onTappedRetry", "onChangedFilter", "select", "move"]
    }

    /// What decoding the whole object gives, in ``IntentMessage/decode(as:)``'s terms.
    static func expected(_ message: IntentMessage) -> Result<Intent, IntentError> {
        guard Intent.names.contains(message.name) else { return .failure(.unknownIntent(message.name)) }
        do {
            let object = JSONValue.object([message.name: .object(message.arguments)])
            return .success(try JSONValueDecoder().decode(Intent.self, from: object))
        } catch let error as JSONError {
            return .failure(.invalidArguments(intent: message.name, reason: error.description))
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            return .failure(.unknownIntent(message.name))
        } catch {
            return .failure(.invalidArguments(intent: message.name, reason: "\(error)"))
        }
    }

    static let messages: [IntentMessage] = [
        IntentMessage(name: "onTappedRetry"),
        IntentMessage(name: "onTappedRetry", arguments: ["extra": true]),
        IntentMessage(name: "onChangedFilter", arguments: ["text": "lamp"]),
        IntentMessage(name: "onChangedFilter", arguments: ["text": 3]),
        IntentMessage(name: "onChangedFilter", arguments: ["text": .null]),
        IntentMessage(name: "onChangedFilter"),
        IntentMessage(name: "select", arguments: ["index": 2, "animated": true]),
        IntentMessage(name: "select", arguments: ["index": 2]),
        IntentMessage(name: "select", arguments: ["index": 2.5]),
        IntentMessage(name: "move", arguments: ["_0": 1, "to": 4]),
        IntentMessage(name: "move", arguments: ["from": 1, "to": 4]),
        IntentMessage(name: "onTappedNothing"),
    ]

    @Test("Each message: the same case, or the same error", arguments: messages)
    func sameAsTheWholeObject(_ message: IntentMessage) {
        let decoded = Result { () throws(IntentError) in try message.decode(as: Intent.self) }
        #expect(decoded == Self.expected(message))
    }

    @Test("The cases decode to what they say")
    func cases() throws {
        #expect(try IntentMessage(name: "onTappedRetry").decode(as: Intent.self) == .onTappedRetry)
        #expect(
            try IntentMessage(name: "onChangedFilter", arguments: ["text": "lamp"]).decode(as: Intent.self)
                == .onChangedFilter(text: "lamp")
        )
        #expect(
            try IntentMessage(name: "select", arguments: ["index": 2]).decode(as: Intent.self)
                == .select(index: 2, animated: nil)
        )
        #expect(
            try IntentMessage(name: "move", arguments: ["_0": 1, "to": 4]).decode(as: Intent.self) == .move(1, to: 4)
        )
        #expect(throws: IntentError.unknownIntent("onTappedNothing")) {
            try IntentMessage(name: "onTappedNothing").decode(as: Intent.self)
        }
    }
}
