import NavHostVarlink
import Testing

@Suite("Parsing the Varlink interface definition language")
struct IDLParserTests {
    /// systemd-style syntax: comments everywhere, multi-line structs, nested anonymous structs, enums, maps, sets.
    static let systemdStyle = """
        # Resolves host names.
        # Second line of documentation.
        interface io.systemd.Resolve-Test.v2

        # An address family.
        type Family (inet, inet6)

        type ResolvedAddress(
                # The interface index.
                ifindex : ?int,
                family: Family,
                address: []int
        )

        # A record, nested two levels deep.
        type Record (
          name: string,
          data: (
            kind: (a, aaaa, txt),
            values: [string]?[](weight: float, text: string),
            raw: object
          ),
          flags: [string](),
          anything: any
        )

        method ResolveHostname(
                ifindex: ?int,   # trailing comments are fine
                name: string,
                family: ?Family,
                flags: ?int
        ) -> (
                addresses: []ResolvedAddress,
                name: string,
                flags: int
        )
        method Ping() -> ()

        # No such host.
        error NoNameServers()
        error DNSError (rcode: int, extendedDNSErrorCode: ?int)
        """

    @Test("systemd-style syntax parses with its types, methods, errors and documentation")
    func systemdStyleParses() throws {
        let interface = try VarlinkInterface(parsing: Self.systemdStyle)
        #expect(interface.name == "io.systemd.Resolve-Test.v2")
        #expect(interface.documentation == "Resolves host names.\nSecond line of documentation.")
        #expect(interface.description == Self.systemdStyle)
        #expect(
            interface.members.map(\.name) == [
                "Family", "ResolvedAddress", "Record", "ResolveHostname", "Ping", "NoNameServers", "DNSError",
            ]
        )
        #expect(interface.types["Family"]?.type == .enumeration(["inet", "inet6"]))
        #expect(interface.types["Family"]?.documentation == "An address family.")
        guard case .structure(let fields) = interface.types["ResolvedAddress"]?.type else {
            Issue.record("ResolvedAddress is not a structure")
            return
        }
        #expect(fields.map(\.name) == ["ifindex", "family", "address"])
        #expect(fields[0].type == .optional(.int))
        #expect(fields[0].documentation == "The interface index.")
        #expect(fields[2].type == .array(.int))
        guard case .structure(let record) = interface.types["Record"]?.type else {
            Issue.record("Record is not a structure")
            return
        }
        #expect(
            record[1].type
                == .structure([
                    VarlinkField(name: "kind", type: .enumeration(["a", "aaaa", "txt"])),
                    VarlinkField(
                        name: "values",
                        type: .map(
                            .optional(
                                .array(
                                    .structure([
                                        VarlinkField(name: "weight", type: .float),
                                        VarlinkField(name: "text", type: .string),
                                    ])
                                )
                            )
                        )
                    ),
                    VarlinkField(name: "raw", type: .object),
                ])
        )
        #expect(record[2].type == .map(.structure([])))
        #expect(record[3].type == .any)
        let resolve = try #require(interface.methods["ResolveHostname"])
        #expect(resolve.input.map(\.name) == ["ifindex", "name", "family", "flags"])
        #expect(resolve.input[2].type == .optional(.named("Family")))
        #expect(resolve.output[0].type == .array(.named("ResolvedAddress")))
        #expect(interface.methods["Ping"]?.input == [])
        #expect(interface.errors["NoNameServers"]?.documentation == "No such host.")
        #expect(interface.errors["DNSError"]?.parameters.map(\.name) == ["rcode", "extendedDNSErrorCode"])
    }

    @Test(
        "Broken definitions fail with the code and position of the problem",
        arguments: [
            ("method Foo() -> ()", VarlinkIDLError.Code.syntax, 1, 1),
            ("interface org.example\n", .syntax, 2, 1),
            ("interface example\nmethod F() -> ()", .invalidName, 1, 11),
            ("interface org.example\nmethod foo() -> ()", .invalidName, 2, 8),
            ("interface org.example\nmethod F(a: int) -> (b: Missing)", .unknownType, 2, 25),
            ("interface org.example\nmethod F() -> ()\nerror F ()", .duplicateName, 2, 8),
            ("interface org.example\nmethod F(a: int, a: string) -> ()", .duplicateName, 2, 8),
            ("interface org.example\nmethod F(a: ??int) -> ()", .syntax, 2, 14),
            ("interface org.example\nmethod F(a: int -> ()", .syntax, 2, 17),
            ("interface org.example method F() -> ()", .syntax, 1, 23),
            ("interface org.example\nmethod F(a__b: int) -> ()", .invalidName, 2, 10),
            ("interface org.example\ntype T (a: int) extra", .syntax, 2, 17),
        ]
    )
    func brokenDefinitions(text: String, code: VarlinkIDLError.Code, line: Int, column: Int) {
        #expect {
            try VarlinkInterface(parsing: text)
        } throws: { error in
            guard let error = error as? VarlinkIDLError else { return false }
            return error.code == code && error.line == line && error.column == column
        }
    }

    @Test("The types print back in IDL syntax")
    func typeDescriptions() throws {
        let type = VarlinkType.optional(.array(.map(.structure([VarlinkField(name: "a", type: .named("T"))]))))
        #expect(type.description == "?[][string](a: T)")
    }
}
