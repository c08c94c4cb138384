import NavHostJSON
import NavHostKit
import Testing

/// ``IntentMessage/decode(as:)`` reads the case from its name and arguments without building the object
/// `{name: arguments}` the synthesized `Decodable` reads it from: it must decode, and fail, as decoding that object
/// does, with two differences on purpose: an error's path starts at the arguments (`text`, not
/// `onChangedFilter.text`), and an argument the case does not take is refused (`unknownMember`).
@Suite("An intent decodes as the object {name: arguments} does")
struct IntentDecodingTests {
    enum Intent: ViewModelIntent, Equatable {
        case onTappedRetry
        case onChangedFilter(text: String)
        case select(index: Int, animated: Bool?)
        case move(_ from: Int, to: Int)

        static let names = ["onTappedRetry", "onChangedFilter", "select", "move"]
    }

    /// What decoding the whole object gives, in ``IntentMessage/decode(as:)``'s terms; the arguments a case takes
    /// are those ``ViewModelIntent/arguments`` lists for it.
    static func expected(_ message: IntentMessage) -> Result<Intent, IntentError> {
        guard Intent.names.contains(message.name) else { return .failure(.unknownIntent(message.name)) }
        do {
            let object = JSONValue.object([message.name: .object(message.arguments)])
            let intent = try JSONValueDecoder().decode(Intent.self, from: object)
            let taken = Set((Intent.arguments[message.name] ?? []).map(\.name))
            if let unknown = message.arguments.keys.first(where: { !taken.contains($0) }) {
                let error = JSONError(
                    code: .unknownMember,
                    message: "unknown member \"\(unknown)\"" + (taken.isEmpty ? ": it takes none" : ""),
                    path: unknown
                )
                return .failure(.invalidArguments(intent: message.name, reason: error.description))
            }
            return .success(intent)
        } catch var error as JSONError {
            if let path = error.path, path.hasPrefix(message.name + ".") {
                error.path = String(path.dropFirst(message.name.count + 1))
            }
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
        IntentMessage(name: "select", arguments: ["index": 2, "animatd": true]),
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

    /// An intent a plugin decodes by hand: `configure` takes whatever arguments it is given, listing their keys
    /// (`allKeys`); `wrap` reads its one argument, `value`, through `superDecoder(forKey:)`.
    enum HandDecoded: ViewModelIntent, Equatable {
        case configure(keys: [String])
        case wrap(String)

        static let names = ["configure", "wrap"]

        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let cases = try decoder.container(keyedBy: Key.self)
            guard let name = cases.allKeys.first else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "no case"))
            }
            let arguments = try cases.nestedContainer(keyedBy: Key.self, forKey: name)
            if name.stringValue == "configure" {
                self = .configure(keys: arguments.allKeys.map(\.stringValue).sorted())
            } else {
                let value = try arguments.superDecoder(forKey: Key(stringValue: "value"))
                self = .wrap(try value.singleValueContainer().decode(String.self))
            }
        }
    }

    @Test("A case decoded by hand that lists its arguments' keys, or reads one through superDecoder, reads them")
    func handDecodedCases() throws {
        #expect(
            try IntentMessage(name: "configure", arguments: ["b": 2, "a": true]).decode(as: HandDecoded.self)
                == .configure(keys: ["a", "b"])
        )
        #expect(try IntentMessage(name: "wrap", arguments: ["value": "x"]).decode(as: HandDecoded.self) == .wrap("x"))
        // Read through superDecoder(forKey:), `value` is read; the argument beside it is not.
        let unknown = IntentError.invalidArguments(
            intent: "wrap",
            reason: #"JSON unknownMember: unknown member "extra" (at extra)"#
        )
        #expect(throws: unknown) {
            try IntentMessage(name: "wrap", arguments: ["value": "x", "extra": 1]).decode(as: HandDecoded.self)
        }
    }
}
