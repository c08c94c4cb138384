import NavHostJSON
import NavHostVarlink

/// `org.varlink.certification` on top of NavHostVarlink: every method checks what the client sent against what the
/// previous reply told it to send, and the methods must come in order.
enum CertificationImplementation {
    static func make() throws -> VarlinkInterfaceImplementation {
        var interface = try VarlinkInterfaceImplementation(description: CertificationInterface.description)
        let sessions = CertificationSessions()

        interface.handle("Start") { _ in
            ["client_id": .string(sessions.start())]
        }
        interface.handle("Test01") { request in
            try check(request, "Test01", sessions) { _ in true }
            return ["bool": true]
        }
        interface.handle("Test02") { request in
            try check(request, "Test02", sessions) { $0["bool"] == true }
            return ["int": 1]
        }
        interface.handle("Test03") { request in
            try check(request, "Test03", sessions) { $0["int"] == 1 }
            return ["float": 1.0]
        }
        interface.handle("Test04") { request in
            try check(request, "Test04", sessions) { $0["float"]?.doubleValue == 1.0 }
            return ["string": "ping"]
        }
        interface.handle("Test05") { request in
            try check(request, "Test05", sessions) { $0["string"] == "ping" }
            return ["bool": false, "int": 2, "float": .double(Double.pi), "string": "a lot of string"]
        }
        interface.handle("Test06") { request in
            try check(request, "Test06", sessions) { parameters in
                parameters["bool"] == false && parameters["int"] == 2
                    && parameters["float"]?.doubleValue == Double.pi && parameters["string"] == "a lot of string"
            }
            return ["struct": ["bool": false, "int": 2, "float": .double(Double.pi), "string": "a lot of string"]]
        }
        interface.handle("Test07") { request in
            try check(request, "Test07", sessions) { parameters in
                let value = parameters["struct"]
                return value?["bool"] == false && value?["int"] == 2 && value?["float"]?.doubleValue == Double.pi
                    && value?["string"] == "a lot of string"
            }
            return ["map": ["foo": "Foo", "bar": "Bar"]]
        }
        interface.handle("Test08") { request in
            try check(request, "Test08", sessions) { canonical($0["map"]) == canonical(["foo": "Foo", "bar": "Bar"]) }
            return ["set": ["one": [:], "two": [:], "three": [:]]]
        }
        interface.handle("Test09") { request in
            try check(request, "Test09", sessions) { parameters in
                canonical(parameters["set"]) == canonical(["one": [:], "two": [:], "three": [:]])
            }
            return ["mytype": myType]
        }
        interface.handleStreaming("Test10") { request, replies in
            try check(request, "Test10", sessions) { parameters in
                request.call.more && canonical(parameters["mytype"]) == canonical(myType)
            }
            for number in 1...9 {
                try await replies.send(["string": .string("Reply number \(number)")])
            }
            return ["string": "Reply number 10"]
        }
        interface.handle("Test11") { request in
            let expected = JSONValue.array((1...10).map { .string("Reply number \($0)") })
            try check(request, "Test11", sessions) { request.call.oneway && $0["last_more_replies"] == expected }
            return [:]
        }
        interface.handle("End") { request in
            try check(request, "End", sessions) { _ in true }
            sessions.remove(request.parameters["client_id"]?.stringValue ?? "")
            return ["all_ok": true]
        }
        return interface
    }

    /// The value Test09 returns and Test10 expects back.
    static let myType: JSONValue = [
        "object": [
            "method": "org.varlink.certification.Test09",
            "parameters": ["map": ["foo": "Foo", "bar": "Bar"]],
        ],
        "enum": "two",
        "struct": ["first": 1, "second": "2"],
        "array": ["one", "two", "three"],
        "dictionary": ["foo": "Foo", "bar": "Bar"],
        "stringset": ["one": [:], "two": [:], "three": [:]],
        "nullable": nil,
        "nullable_array_struct": nil,
        "interface": [
            "foo": [nil, ["foo": "foo", "bar": "bar"], nil, ["one": "foo", "two": "bar"]],
            "anon": ["foo": true, "bar": false],
        ],
    ]

    /// Checks the client ID, the order of calls and the parameters; a failed check ends the client's run.
    private static func check(
        _ request: VarlinkRequest,
        _ method: String,
        _ sessions: CertificationSessions,
        _ isValid: (JSONObject) -> Bool
    ) throws {
        let clientID = request.parameters["client_id"]?.stringValue ?? ""
        guard sessions.contains(clientID) else {
            throw VarlinkError(name: "org.varlink.certification.ClientIdError")
        }
        if let expected = sessions.advance(clientID, calling: method) {
            sessions.remove(clientID)
            throw certificationError(
                wants: ["method": .string("org.varlink.certification.\(expected)")],
                got: ["method": .string(request.call.method)]
            )
        }
        guard isValid(request.parameters) else {
            sessions.remove(clientID)
            throw certificationError(wants: ["method": .string(request.call.method)], got: request.call.jsonValue)
        }
    }

    private static func certificationError(wants: JSONValue, got: JSONValue) -> VarlinkError {
        VarlinkError(name: "org.varlink.certification.CertificationError", parameters: ["wants": wants, "got": got])
    }

    /// The value with object members sorted and `null` members dropped: absent and `null` mean the same in Varlink,
    /// and member order means nothing.
    static func canonical(_ value: JSONValue?) -> JSONValue? {
        switch value {
        case .object(let members)?:
            var sorted = JSONObject()
            for key in members.keys.sorted() where members[key] != .null {
                sorted[key] = canonical(members[key])
            }
            return .object(sorted)
        case .array(let elements)?:
            return .array(elements.map { canonical($0) ?? .null })
        default:
            return value
        }
    }
}
