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
}

/// `keys` as `a.b[1]` text.
private func text(of keys: [any CodingKey]) -> String {
    keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingPrefixDot()
}

extension String {
    fileprivate func trimmingPrefixDot() -> String { hasPrefix(".") ? String(dropFirst()) : self }
}
