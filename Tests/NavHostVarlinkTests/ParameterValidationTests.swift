import NavHostJSON
import Testing

@testable import NavHostVarlink

@Suite("Checking call parameters against the interface")
struct ParameterValidationTests {
    let interface: VarlinkInterface
    let method: VarlinkInterface.Method

    init() throws {
        interface = try VarlinkInterface(
            parsing: """
                interface org.example.check

                type Mode (fast, slow)
                type Item (name: string, size: ?int)

                method Take(
                  flag: bool,
                  count: int,
                  ratio: float,
                  mode: Mode,
                  items: []Item,
                  labels: [string]string,
                  set: [string](),
                  payload: object,
                  value: any,
                  note: ?string,
                  nested: ?(inner: (deep: int))
                ) -> ()
                """
        )
        method = try #require(interface.methods["Take"])
    }

    /// Checks `parameters` against `method` (this suite's `Take` when `nil`) both ways the daemon does: as a
    /// `JSONObject` (a call read the general way), and as json-c's parse of a call that holds them, read by
    /// ``VarlinkCallReader``, from `text` when given (the parameters as a client wrote them), else from their
    /// serialization; both must name the same offence, or none. The reader must read the call, unless `mayDecline`
    /// (a value it leaves to the general reading, like `UInt64.max`).
    ///
    /// - Throws: The offence, `InvalidParameter`.
    private func check(
        _ parameters: JSONObject,
        text: String? = nil,
        mayDecline: Bool = false,
        against declaration: (VarlinkInterface, VarlinkInterface.Method)? = nil
    ) throws {
        let (interface, method) = declaration ?? (self.interface, self.method)
        var direct: VarlinkError?
        do { try interface.validateInput(parameters, of: method) } catch { direct = error }
        let written = try text ?? JSONValue.object(parameters).serializedString()
        let message = #"{"method":"org.example.Take","parameters":"# + written + "}"
        let reader = VarlinkCallReader(maxDepth: JSONParser.defaultMaxDepth)
        if let call = Array(message.utf8).withUnsafeBytes({ reader.read($0) }) {
            #expect(call.parameterTree != nil || parameters.isEmpty)
            var viaTree: VarlinkError?
            do { try interface.validateInput(of: call, against: method) } catch { viaTree = error }
            #expect(viaTree == direct, "\(message)")
        } else {
            #expect(mayDecline, "the reader declined \(message)")
        }
        if let direct { throw direct }
    }

    var valid: JSONObject {
        let text = """
            {"flag":true,"count":3,"ratio":1,"mode":"fast","items":[{"name":"a"},{"name":"b","size":2}],
            "labels":{"k":"v"},"set":{"x":{}},"payload":{"any":{"thing":null}},"value":[1,"two"]}
            """
        return (try? JSONParser().parse(text).objectValue) ?? [:]
    }

    @Test("Valid parameters pass, optional fields absent or null")
    func validPasses() throws {
        try check(valid)
        var withNulls = valid
        withNulls["note"] = nil
        withNulls["note"] = .null
        withNulls["nested"] = ["inner": ["deep": 1]]
        try check(withNulls)
        var extremes = valid
        extremes["count"] = .int(.max)
        try check(extremes)
        extremes["count"] = .int(.min)
        // json-c reads any integer below Int64.min as Int64.min: the reader leaves that one to the general reading.
        try check(extremes, mayDecline: true)
    }

    @Test(
        "Each kind of mistake names the offending parameter by its path",
        arguments: [
            ("flag", "null", "flag"),
            ("flag", #""true""#, "flag"),
            ("count", "1.5", "count"),
            ("count", #""3""#, "count"),
            ("count", "9223372036854775808", "count"),
            ("count", "18446744073709551615", "count"),
            ("count", "18446744073709551616", "count"),
            ("count", "1e19", "count"),
            ("count", "2.0", "count"),
            ("ratio", #""1""#, "ratio"),
            ("mode", #""medium""#, "mode"),
            ("items", #"[{"name":"a"},{"size":1}]"#, "items[1].name"),
            ("items", #"[{"name":"a","colour":"red"}]"#, "items[0].colour"),
            ("items", "[null]", "items[0]"),
            ("labels", #"{"k":1}"#, "labels.k"),
            ("set", #"{"x":{"y":1}}"#, "set.x.y"),
            ("payload", "[1]", "payload"),
            ("value", "null", "value"),
            ("note", "5", "note"),
            ("nested", #"{"inner":{"deep":"no"}}"#, "nested.inner.deep"),
            ("unknown", "1", "unknown"),
        ] as [(String, String, String)]
    )
    func mistakes(field: String, json: String, path: String) throws {
        var parameters = valid
        parameters[field] = try JSONParser().parse(json)
        // The value as written, not as the JSON layer writes it back: json-c must read `9223372036854775808` itself.
        var others = valid
        others[field] = nil
        let rest = try JSONValue.object(others).serializedString().dropFirst()
        let text = #"{""# + field + #"":"# + json + (rest == "}" ? "" : ",") + rest
        // json-c reads an integer from UInt64.max up as UInt64.max: the reader leaves those to the general reading.
        let mayDecline = json == "18446744073709551615" || json == "18446744073709551616"
        #expect(throws: VarlinkError.invalidParameter(path)) {
            try check(parameters, text: text, mayDecline: mayDecline)
        }
    }

    @Test("A missing required parameter is named")
    func missing() {
        var parameters = valid
        parameters["mode"] = nil
        #expect(throws: VarlinkError.invalidParameter("mode")) {
            try check(parameters)
        }
    }

    @Test("A member no field declares is named first, wherever it is; then the fields in declaration order")
    func firstOffence() {
        var parameters = valid
        parameters["flag"] = "true"
        parameters["unknown"] = 1
        #expect(throws: VarlinkError.invalidParameter("unknown")) {
            try check(parameters)
        }
        // `flag`, declared first, is missing; `count`, declared after it, holds a string.
        parameters = valid
        parameters["flag"] = nil
        parameters["count"] = "3"
        #expect(throws: VarlinkError.invalidParameter("flag")) {
            try check(parameters)
        }
        // `ratio` comes last in the object but is declared before `labels`.
        parameters = valid
        parameters["ratio"] = nil
        parameters["labels"] = ["k": 1]
        parameters["ratio"] = "1"
        #expect(throws: VarlinkError.invalidParameter("ratio")) {
            try check(parameters)
        }
    }

    // MARK: - More fields than a 64-bit word has bits

    /// A method of 70 required `int` fields, `f0` to `f69`, and an optional one after them: the walk notes the fields
    /// it saw by position, a bit each for the first 64, and looks the rest up by name.
    static func wideMethod() throws -> (VarlinkInterface, VarlinkInterface.Method) {
        let fields = (0..<70).map { "f\($0): int" } + ["note: ?string"]
        let interface = try VarlinkInterface(
            parsing: "interface org.example.wide\n\nmethod Take(\(fields.joined(separator: ", "))) -> ()\n"
        )
        return (interface, try #require(interface.methods["Take"]))
    }

    /// Every required field of ``wideMethod()``, each its own number.
    static var wideParameters: JSONObject {
        var parameters = JSONObject()
        for number in 0..<70 { parameters["f\(number)"] = .int(Int64(number)) }
        return parameters
    }

    @Test("A declaration of 70 fields: all present pass, the optional one absent or given")
    func manyFieldsPass() throws {
        let (interface, method) = try Self.wideMethod()
        try check(Self.wideParameters, against: (interface, method))
        var withNote = Self.wideParameters
        withNote["note"] = "seventy-one"
        try check(withNote, against: (interface, method))
    }

    @Test(
        "A declaration of 70 fields names a missing one, on either side of the 64th",
        arguments: ["f0", "f63", "f64", "f65", "f69"]
    )
    func manyFieldsMissing(field: String) throws {
        let (interface, method) = try Self.wideMethod()
        var parameters = Self.wideParameters
        parameters[field] = nil
        #expect(throws: VarlinkError.invalidParameter(field)) {
            try check(parameters, against: (interface, method))
        }
    }

    @Test("A declaration of 70 fields names an invalid one past the 64th, and an undeclared member before it")
    func manyFieldsInvalid() throws {
        let (interface, method) = try Self.wideMethod()
        var parameters = Self.wideParameters
        parameters["f66"] = "sixty-six"
        #expect(throws: VarlinkError.invalidParameter("f66")) {
            try check(parameters, against: (interface, method))
        }
        // f66 still offends, and f67 is missing: the earlier declared is named.
        parameters["f67"] = nil
        #expect(throws: VarlinkError.invalidParameter("f66")) {
            try check(parameters, against: (interface, method))
        }
        parameters["f70"] = 70
        #expect(throws: VarlinkError.invalidParameter("f70")) {
            try check(parameters, against: (interface, method))
        }
    }
}
