import NavHostJSON
import Testing

@Suite("Encoding and decoding Swift values through JSONValue")
struct JSONCodableTests {
    struct Product: Codable, Equatable {
        var id: String
        var name: String
        var price: Double
        var stock: Int
        var tags: [String]
        var seller: Seller?
        var ratings: [String: Int]
    }

    struct Seller: Codable, Equatable {
        var userID: String
        var verified: Bool
    }

    enum Intent: Codable, Equatable {
        case onTappedRetry
        case onChangedFilter(text: String)
        case select(index: Int, animated: Bool)
    }

    let encoder = JSONValueEncoder()
    let decoder = JSONValueDecoder()

    @Test("A nested struct round-trips through bytes, keys in declaration order")
    func nestedRoundTrip() throws {
        let product = Product(
            id: "p1",
            name: "Lamp \"Luxe\"",
            price: 19.99,
            stock: 3,
            tags: ["home", "light"],
            seller: Seller(userID: "u42", verified: true),
            ratings: ["five": 2]
        )
        let json = try encoder.encode(product)
        #expect(Array(json.objectValue!.keys) == ["id", "name", "price", "stock", "tags", "seller", "ratings"])
        let bytes = try json.serializedBytes()
        #expect(try decoder.decode(Product.self, fromBytes: bytes) == product)
    }

    @Test("A nil optional is left out")
    func nilOptionalOmitted() throws {
        let product = Product(id: "p", name: "n", price: 1, stock: 0, tags: [], seller: nil, ratings: [:])
        #expect(try encoder.encode(product)["seller"] == nil)
    }

    @Test("Enums with associated values use the synthesized form")
    func enumForm() throws {
        #expect(try encoder.encode(Intent.onChangedFilter(text: "ab")) == ["onChangedFilter": ["text": "ab"]])
        #expect(try encoder.encode(Intent.onTappedRetry) == ["onTappedRetry": [:]])
        let decoded = try decoder.decode(Intent.self, from: ["select": ["index": 2, "animated": false]])
        #expect(decoded == .select(index: 2, animated: false))
    }

    @Test("Integer edges encode exactly and refuse what does not fit")
    func integerEdges() throws {
        #expect(try encoder.encode(Int64.max) == .int(.max))
        #expect(try encoder.encode(Int64.min) == .int(.min))
        #expect(try encoder.encode(UInt64.max) == .double(Double(UInt64.max)))
        #expect(try decoder.decode(Int8.self, from: 127) == 127)
        #expect(try decoder.decode(Int.self, from: 2.0) == 2)
        let overflow = #expect(throws: JSONError.self) { try decoder.decode(Int8.self, from: 128) }
        #expect(overflow?.code == .dataCorrupted)
        #expect(throws: JSONError.self) { try decoder.decode(Int.self, from: 2.5) }
    }

    @Test("A type mismatch names the path to the member")
    func mismatchPath() throws {
        let json: JSONValue = [
            "id": "p", "name": "n", "price": 1, "stock": "three", "tags": [], "ratings": [:],
        ]
        let error = #expect(throws: JSONError.self) { try decoder.decode(Product.self, from: json) }
        #expect(error?.code == .typeMismatch)
        #expect(error?.path == "stock")
        let nested = #expect(throws: JSONError.self) {
            try decoder.decode(
                [Seller].self,
                from: [["userID": "a", "verified": true], ["userID": 5, "verified": true]]
            )
        }
        #expect(nested?.path == "[1].userID")
    }

    @Test("A missing member is reported as keyNotFound")
    func missingKey() {
        let error = #expect(throws: JSONError.self) { try decoder.decode(Seller.self, from: ["userID": "a"]) }
        #expect(error?.code == .keyNotFound)
        #expect(error?.path == "verified")
    }

    @Test("null where a value is needed is valueNotFound")
    func nullValue() {
        let error = #expect(throws: JSONError.self) {
            try decoder.decode(Seller.self, from: ["userID": nil, "verified": true])
        }
        #expect(error?.code == .valueNotFound)
    }

    @Test("NaN cannot be encoded")
    func nanRefused() {
        let error = #expect(throws: JSONError.self) { try encoder.encode(["x": Double.nan]) }
        #expect(error?.code == .nonFiniteNumber)
    }

    @Test("A JSONObject member is a JSON object, keys in order, both ways")
    func jsonObjectMember() throws {
        struct Request: Codable, Equatable {
            var id: String
            var parameters: JSONObject
        }
        let request = Request(id: "products.detail", parameters: ["productID": "p1", "b": 2])
        let json = try encoder.encode(request)
        #expect(json == ["id": "products.detail", "parameters": ["productID": "p1", "b": 2]])
        #expect(try json.serializedString() == #"{"id":"products.detail","parameters":{"productID":"p1","b":2}}"#)
        #expect(try decoder.decode(Request.self, from: json) == request)
        let wrong = #expect(throws: JSONError.self) {
            try decoder.decode(Request.self, from: ["id": "x", "parameters": ["a", 1]])
        }
        #expect(wrong?.path == "parameters")
    }

    @Test("Top-level JSONObject, JSONValue and scalars encode as themselves")
    func topLevelValues() throws {
        let object: JSONObject = ["a": 1, "b": [true]]
        #expect(try encoder.encode(object) == ["a": 1, "b": [true]])
        #expect(try encoder.encode(JSONValue.string("x")) == "x")
        #expect(try encoder.encode(42) == 42)
        #expect(try encoder.encode("text") == "text")
        #expect(try decoder.decode(JSONObject.self, from: ["k": nil]) == ["k": nil])
    }

    @Test("Every primitive type, bare or optional, in arrays and dictionaries, encodes as its JSON value")
    func primitivesEveryWay() throws {
        #expect(try encoder.encode(true) == true)
        #expect(try encoder.encode(Int8(-8)) == -8)
        #expect(try encoder.encode(UInt16(16)) == 16)
        #expect(try encoder.encode(Int32(-32)) == -32)
        #expect(try encoder.encode(UInt64.max) == .double(Double(UInt64.max)))
        #expect(try encoder.encode(Float(0.5)) == 0.5)
        #expect(try encoder.encode(Optional("x")) == "x")
        #expect(try encoder.encode(Optional<Bool>.none) == nil)
        #expect(try encoder.encode([1, nil, 3] as [Int?]) == [1, nil, 3])
        // One key each: a dictionary's order is not stable, and JSONObject keeps the order it was given.
        #expect(try encoder.encode(["a": 1.5] as [String: Double?]) == ["a": 1.5])
        #expect(try encoder.encode(["b": nil] as [String: Double?]) == ["b": nil])
        #expect(try encoder.encode([JSONValue.bool(false), "y"]) == [false, "y"])
        #expect(throws: JSONError.self) { try encoder.encode([Double?.some(.nan)]) }
    }

    @Test("A JSONValue member passes through unchanged")
    func freeFormMember() throws {
        struct Envelope: Codable, Equatable {
            var name: String
            var arguments: JSONValue
        }
        let envelope = Envelope(name: "x", arguments: ["a": [1, "b", nil, 2.5, ["c": true]]])
        let json = try encoder.encode(envelope)
        #expect(try decoder.decode(Envelope.self, from: json) == envelope)
    }

    @Test("A JSONObject member is a JSON object both ways, members in order")
    func objectMember() throws {
        struct Request: Codable, Equatable {
            var route: String
            var parameters: JSONObject
            var arguments: JSONObject?
        }
        let request = Request(route: "products.detail", parameters: ["productID": "p1", "count": 2], arguments: [:])
        let json = try encoder.encode(request)
        #expect(json == ["route": "products.detail", "parameters": ["productID": "p1", "count": 2], "arguments": [:]])
        let expected = #"{"route":"products.detail","parameters":{"productID":"p1","count":2},"arguments":{}}"#
        #expect(try json.serializedString() == expected)
        #expect(try decoder.decode(Request.self, from: json) == request)
        // A JSONObject on its own, as handlers return their output parameters.
        #expect(try encoder.encode(["revision": 3] as JSONObject) == ["revision": 3])
        #expect(try decoder.decode(JSONObject.self, from: ["revision": 3]) == ["revision": 3])
    }

    /// A member of each primitive kind, read from a keyed container, an array's element down.
    struct Reading: Decodable, Equatable {
        var flag: Bool
        var text: String
        var ratio: Double
        var small: Int8
        var scale: Float
        var count: UInt16
        var note: String?
    }

    /// A member of ``Reading`` given a value (`nil`: left out), and the error its decoding gives.
    static let badMembers: [(member: String, value: JSONValue?, error: String)] = [
        ("flag", 1, "JSON typeMismatch: expected a bool, found int (at [0].flag)"),
        ("text", 2.5, "JSON typeMismatch: expected a string, found float (at [0].text)"),
        ("ratio", .null, "JSON valueNotFound: expected a number, found null (at [0].ratio)"),
        ("small", "1", "JSON typeMismatch: expected an integer, found string (at [0].small)"),
        ("small", 300, "JSON dataCorrupted: 300 does not fit in Int8 (at [0].small)"),
        ("small", 1.5, "JSON dataCorrupted: 1.5 does not fit in Int8 (at [0].small)"),
        ("ratio", nil, #"JSON keyNotFound: missing member "ratio" (at [0].ratio)"#),
        ("note", false, "JSON typeMismatch: expected a string, found bool (at [0].note)"),
        ("scale", "x", "JSON typeMismatch: expected a number, found string (at [0].scale)"),
        ("count", -1, "JSON dataCorrupted: -1 does not fit in UInt16 (at [0].count)"),
        ("count", 65_536, "JSON dataCorrupted: 65536 does not fit in UInt16 (at [0].count)"),
    ]

    @Test(
        "A keyed member's error says what was expected, what was found and where, for each primitive kind",
        arguments: badMembers
    )
    func keyedMemberErrors(member: String, value: JSONValue?, error expected: String) throws {
        var element: JSONObject = ["flag": true, "text": "a", "ratio": 1, "small": 1, "scale": 1, "count": 1]
        element[member] = value
        let bytes = try JSONValue.array([.object(element)]).serializedBytes()
        let error = #expect(throws: JSONError.self) { try decoder.decode([Reading].self, fromBytes: bytes) }
        #expect(error?.description == expected)
    }

    @Test("A keyed container reads each primitive kind, an optional member present, absent or null")
    func keyedMembers() throws {
        let json: JSONValue = [
            ["flag": true, "text": "a", "ratio": 2, "small": -8, "scale": 1.5, "count": 65_535, "note": "n"],
            ["flag": false, "text": "", "ratio": 0.5, "small": 127.0, "scale": 2, "count": 0],
            ["flag": false, "text": "b", "ratio": -1, "small": 0, "scale": -0.25, "count": 7.0, "note": nil],
        ]
        #expect(
            try decoder.decode([Reading].self, from: json) == [
                Reading(flag: true, text: "a", ratio: 2, small: -8, scale: 1.5, count: 65_535, note: "n"),
                Reading(flag: false, text: "", ratio: 0.5, small: 127, scale: 2, count: 0, note: nil),
                Reading(flag: false, text: "b", ratio: -1, small: 0, scale: -0.25, count: 7, note: nil),
            ]
        )
    }

    /// A value that writes a member twice and records the coding paths it is encoded at.
    struct PathRecorder: Encodable {
        /// Each `codingPath` the value saw, as `a.b[1]` text, in the order it looked.
        final class Seen: @unchecked Sendable {
            var paths: [String] = []
        }

        let seen: Seen
        var inner: [Inner]

        struct Inner: Encodable {
            let seen: Seen
            var value: Double

            func encode(to encoder: any Encoder) throws {
                seen.paths.append(text(of: encoder.codingPath))
                var container = encoder.container(keyedBy: Key.self)
                seen.paths.append(text(of: container.codingPath))
                try container.encode(value, forKey: .value)
            }
        }

        enum Key: String, CodingKey { case first, inner, value }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode("once", forKey: .first)
            try container.encode(inner, forKey: .inner)
            try container.encode("twice", forKey: .first)
        }
    }

    @Test("A member encoded twice keeps its first place; codingPath and an error's path name the keys from the root")
    func codingPathsAndRepeatedMembers() throws {
        let seen = PathRecorder.Seen()
        let value = PathRecorder(seen: seen, inner: [.init(seen: seen, value: 1.5), .init(seen: seen, value: 2)])
        let json = try encoder.encode(value)
        #expect(try json.serializedString() == #"{"first":"twice","inner":[{"value":1.5},{"value":2.0}]}"#)
        #expect(seen.paths == ["inner[0]", "inner[0]", "inner[1]", "inner[1]"])
        let broken = PathRecorder(
            seen: seen,
            inner: [.init(seen: seen, value: 1), .init(seen: seen, value: .infinity)]
        )
        let error = #expect(throws: JSONError.self) { try encoder.encode(broken) }
        #expect(error?.code == .nonFiniteNumber)
        #expect(error?.path == "inner[1].value")
    }

    /// A value that encodes through every container an encoder hands out (nested keyed and unkeyed containers from
    /// keyed and unkeyed ones, the super encoders of both, a single-value container in each) and records, for each,
    /// the coding path the container reports and the one a value encoded through it sees.
    struct ContainerPathRecorder: Encodable {
        let seen: PathRecorder.Seen

        enum Key: String, CodingKey { case nested, list, leaf, parent }

        /// Records its encoder's path and its single-value container's, as `encoder / container`, then encodes 1.
        struct Leaf: Encodable {
            let seen: PathRecorder.Seen
            let label: String

            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                seen.paths.append("\(label): \(text(of: encoder.codingPath)) / \(text(of: container.codingPath))")
                try container.encode(1.0)
            }
        }

        func encode(to encoder: any Encoder) throws {
            var root = encoder.container(keyedBy: Key.self)
            note("root", root.codingPath)

            var nested = root.nestedContainer(keyedBy: Key.self, forKey: .nested)
            note("nested", nested.codingPath)
            try nested.encode(Leaf(seen: seen, label: "nested leaf"), forKey: .leaf)

            var list = root.nestedUnkeyedContainer(forKey: .list)
            note("list", list.codingPath)
            try list.encode(Leaf(seen: seen, label: "list element"))
            try list.encode(5)
            var keyedElement = list.nestedContainer(keyedBy: Key.self)
            note("keyed element", keyedElement.codingPath)
            try keyedElement.encode(Leaf(seen: seen, label: "keyed element's leaf"), forKey: .leaf)
            var unkeyedElement = list.nestedUnkeyedContainer()
            note("unkeyed element", unkeyedElement.codingPath)
            try unkeyedElement.encode(Leaf(seen: seen, label: "unkeyed element's element"))
            let elementSuper = list.superEncoder()
            note("element's super encoder", elementSuper.codingPath)
            var elementSuperValue = elementSuper.singleValueContainer()
            try elementSuperValue.encode(Leaf(seen: seen, label: "element's super encoder's value"))

            let keyedSuper = root.superEncoder()
            note("super encoder", keyedSuper.codingPath)
            try Leaf(seen: seen, label: "super encoder's value").encode(to: keyedSuper)

            let parentSuper = root.superEncoder(forKey: .parent)
            note("super encoder for parent", parentSuper.codingPath)
            var parentValue = parentSuper.singleValueContainer()
            note("super encoder for parent's value", parentValue.codingPath)
            try parentValue.encode(2)
        }

        private func note(_ label: String, _ codingPath: [any CodingKey]) {
            seen.paths.append("\(label): \(text(of: codingPath))")
        }
    }

    // The paths below are the Codable contract's: a container's path and then its key. Foundation's JSONEncoder
    // (swift-foundation, Swift 6.3.1) reports the same paths for the containers themselves, but a value encoded
    // through a nested container or an unkeyed container's super encoder sees its path without the nested
    // container's keys ("leaf" for "nested.leaf", "[0]" for "list[0]"), and its non-finite number's error says "[1]"
    // for "list[1]"; its index keys' stringValue is "Index 0" where this encoder's is "0".
    @Test("Nested containers, super encoders and single-value containers report their paths from the root")
    func codingPathsOfEveryContainer() throws {
        let seen = PathRecorder.Seen()
        let json = try encoder.encode(ContainerPathRecorder(seen: seen))
        #expect(
            try json.serializedString()
                == #"{"nested":{"leaf":1.0},"list":[1.0,5,{"leaf":1.0},[1.0],1.0],"super":1.0,"parent":2}"#
        )
        #expect(
            seen.paths == [
                "root: ",
                "nested: nested",
                "nested leaf: nested.leaf / nested.leaf",
                "list: list",
                "list element: list[0] / list[0]",
                "keyed element: list[2]",
                "keyed element's leaf: list[2].leaf / list[2].leaf",
                "unkeyed element: list[3]",
                "unkeyed element's element: list[3][0] / list[3][0]",
                "element's super encoder: list[4]",
                "element's super encoder's value: list[4] / list[4]",
                "super encoder: super",
                "super encoder's value: super / super",
                "super encoder for parent: parent",
                "super encoder for parent's value: parent",
            ]
        )
    }

    /// A value that cannot be encoded, in one of the ways an encoding fails.
    enum Failure: CaseIterable, CustomTestStringConvertible {
        /// A NaN handed to the container itself.
        case nonFiniteNumber
        /// A NaN a value encodes through its own single-value container.
        case nonFiniteNumberInValue
        /// A value whose `encode(to:)` throws an `EncodingError` that names its encoder's coding path.
        case thrownByValue

        var testDescription: String {
            switch self {
            case .nonFiniteNumber: "a NaN"
            case .nonFiniteNumberInValue: "a NaN inside a value"
            case .thrownByValue: "a value that throws"
            }
        }

        /// Encodes through a single-value container, as `Leaf` does, a number that has no JSON form.
        struct NonFiniteInValue: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(Double.nan)
            }
        }

        /// Refuses to be encoded, naming where it stands.
        struct Refusing: Encodable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(
                    "refusing",
                    EncodingError.Context(codingPath: encoder.codingPath, debugDescription: "refuses to be encoded")
                )
            }
        }
    }

    /// Where in ``ContainerPathRecorder``'s containers ``FailingValue`` puts its failure, and the path that names it.
    enum FailurePlace: CaseIterable, CustomTestStringConvertible {
        case memberOfNestedKeyedContainer
        case elementOfNestedUnkeyedContainer
        case memberOfKeyedContainerInUnkeyed
        case elementOfUnkeyedContainerInUnkeyed
        case valueOfElementsSuperEncoder
        case valueOfSuperEncoder
        case valueOfSuperEncoderForKey

        /// The path an error raised at this place names.
        var path: String {
            switch self {
            case .memberOfNestedKeyedContainer: "nested.leaf"
            case .elementOfNestedUnkeyedContainer: "list[1]"
            case .memberOfKeyedContainerInUnkeyed: "list[1].leaf"
            case .elementOfUnkeyedContainerInUnkeyed: "list[1][0]"
            case .valueOfElementsSuperEncoder: "list[1]"
            case .valueOfSuperEncoder: "super"
            case .valueOfSuperEncoderForKey: "parent"
            }
        }

        var testDescription: String { "\(self) (\(path))" }
    }

    /// Encodes a member and an element that succeed, then `failure` at `place`.
    struct FailingValue: Encodable {
        let failure: Failure
        let place: FailurePlace

        typealias Key = ContainerPathRecorder.Key

        func encode(to encoder: any Encoder) throws {
            var root = encoder.container(keyedBy: Key.self)
            try root.encode(1.5, forKey: .leaf)
            switch place {
            case .memberOfNestedKeyedContainer:
                var nested = root.nestedContainer(keyedBy: Key.self, forKey: .nested)
                try failure.encode(into: &nested, forKey: .leaf)
            case .elementOfNestedUnkeyedContainer:
                var list = root.nestedUnkeyedContainer(forKey: .list)
                try list.encode(1.5)
                try failure.encode(into: &list)
            case .memberOfKeyedContainerInUnkeyed:
                var list = root.nestedUnkeyedContainer(forKey: .list)
                try list.encode(1.5)
                var element = list.nestedContainer(keyedBy: Key.self)
                try failure.encode(into: &element, forKey: .leaf)
            case .elementOfUnkeyedContainerInUnkeyed:
                var list = root.nestedUnkeyedContainer(forKey: .list)
                try list.encode(1.5)
                var element = list.nestedUnkeyedContainer()
                try failure.encode(into: &element)
            case .valueOfElementsSuperEncoder:
                var list = root.nestedUnkeyedContainer(forKey: .list)
                try list.encode(1.5)
                var value = list.superEncoder().singleValueContainer()
                try failure.encode(into: &value)
            case .valueOfSuperEncoder:
                var value = root.superEncoder().singleValueContainer()
                try failure.encode(into: &value)
            case .valueOfSuperEncoderForKey:
                var value = root.superEncoder(forKey: .parent).singleValueContainer()
                try failure.encode(into: &value)
            }
        }
    }

    @Test(
        "An encoding error names where the failing value stands, in any container",
        arguments: Failure.allCases,
        FailurePlace.allCases
    )
    func errorPathInEveryContainer(failure: Failure, place: FailurePlace) throws {
        let value = FailingValue(failure: failure, place: place)
        switch failure {
        case .nonFiniteNumber, .nonFiniteNumberInValue:
            let error = #expect(throws: JSONError.self) { try encoder.encode(value) }
            #expect(error?.code == .nonFiniteNumber)
            #expect(error?.path == place.path)
        case .thrownByValue:
            let error = #expect(throws: EncodingError.self) { try encoder.encode(value) }
            guard case .invalidValue(_, let context) = error else {
                Issue.record("expected invalidValue, got \(String(describing: error))")
                return
            }
            #expect(text(of: context.codingPath) == place.path)
        }
    }

    @Test("An element that fails is named by its index in an unkeyed container the encoder made")
    func errorPathOfAnElement() throws {
        let error = #expect(throws: JSONError.self) { try encoder.encode(["x": [1, 2, Double.nan]]) }
        #expect(error?.path == "x[2]")
        let thrown = #expect(throws: EncodingError.self) {
            try encoder.encode([[Failure.Refusing()], [Failure.Refusing()]])
        }
        guard case .invalidValue(_, let context) = thrown else {
            Issue.record("expected invalidValue, got \(String(describing: thrown))")
            return
        }
        #expect(text(of: context.codingPath) == "[0][0]")
        #expect(context.codingPath.map(\.intValue) == [0, 0])
    }
}

extension JSONCodableTests.Failure {
    /// Encodes this failure into `container` for `key`.
    func encode<Key: CodingKey>(into container: inout KeyedEncodingContainer<Key>, forKey key: Key) throws {
        switch self {
        case .nonFiniteNumber: try container.encode(Double.nan, forKey: key)
        case .nonFiniteNumberInValue: try container.encode(NonFiniteInValue(), forKey: key)
        case .thrownByValue: try container.encode(Refusing(), forKey: key)
        }
    }

    /// Encodes this failure as `container`'s next element.
    func encode(into container: inout some UnkeyedEncodingContainer) throws {
        switch self {
        case .nonFiniteNumber: try container.encode(Double.nan)
        case .nonFiniteNumberInValue: try container.encode(NonFiniteInValue())
        case .thrownByValue: try container.encode(Refusing())
        }
    }

    /// Encodes this failure as `container`'s value.
    func encode(into container: inout some SingleValueEncodingContainer) throws {
        switch self {
        case .nonFiniteNumber: try container.encode(Double.nan)
        case .nonFiniteNumberInValue: try container.encode(NonFiniteInValue())
        case .thrownByValue: try container.encode(Refusing())
        }
    }
}

/// `keys` as `a.b[1]` text.
private func text(of keys: [any CodingKey]) -> String {
    keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingPrefixDot()
}

extension String {
    fileprivate func trimmingPrefixDot() -> String { hasPrefix(".") ? String(dropFirst()) : self }
}
