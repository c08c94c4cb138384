import NavHostKit
import Observation
import Testing

/// `ViewModelIntent.arguments`: what each case of an intent enum reads, learned from its synthesized `Decodable`.
@Suite("Intent arguments")
struct IntentArgumentTests {
    enum Theme: String, Decodable, Sendable { case light, dark }
    enum Palette: String, CaseIterable, Decodable, Sendable { case light, dark, system }
    enum Level: Int, Decodable, Sendable { case zero, one }
    struct Address: Decodable, Sendable {
        var street: String
        var number: Int
        var note: String?
        var tags: [String]
    }
    struct Node: Decodable, Sendable {
        var name: String
        var children: [Node]
        var parent: Box?
    }
    final class Box: Decodable, Sendable {
        let node: Node
    }

    enum Intent: ViewModelIntent {
        case onTappedRetry
        case onChangedFilter(text: String)
        case onChangedPage(page: Int, size: Int8, ratio: Double, exact: Bool)
        case onChangedNote(note: String?, count: UInt64?)
        case onPicked(ids: [String], grid: [[Int]])
        case onMoved(Address)
        case onTheme(theme: Theme, level: Level, after: String)
        case onPalette(palette: Palette, note: String?, palettes: [Palette])
        case onTree(root: Node)
        case onRaw(value: JSONValue, members: JSONObject, map: [String: Int])

        static let names = [
            "onTappedRetry", "onChangedFilter", "onChangedPage", "onChangedNote", "onPicked", "onMoved", "onTheme",
            "onPalette", "onTree", "onRaw", "notACase",
        ]
    }

    static func described(_ name: String) -> String {
        (Intent.arguments[name] ?? []).map(\.description).joined(separator: ", ")
    }

    @Test("Scalars by label and type, in declaration order; none for a case without arguments")
    func scalars() {
        #expect(Intent.arguments["onTappedRetry"] == [])
        #expect(Self.described("onChangedFilter") == "text: string")
        #expect(Self.described("onChangedPage") == "page: int, size: int, ratio: float, exact: bool")
    }

    @Test("An optional argument is marked with ?")
    func optionals() {
        #expect(Self.described("onChangedNote") == "note: ?string, count: ?int")
    }

    @Test("Arrays by their element type; a type of the feature's own by what it decodes from")
    func composites() {
        #expect(Self.described("onPicked") == "ids: []string, grid: [][]int")
        #expect(Self.described("onMoved") == "_0: object")
        // Raw-value enums decode from their raw value; after one with no empty or zero raw value, the probe stops.
        #expect(Self.described("onTheme") == "theme: string")
        // One that lists its cases is written as a Varlink enum, and the probe goes on after it with its first case.
        #expect(Self.described("onPalette") == "palette: (light, dark, system), note: ?string, palettes: []string")
        #expect(Intent.arguments["onPalette"]?.first?.values == ["light", "dark", "system"])
        #expect(Self.described("onTree") == "root: object")
        #expect(Self.described("onRaw") == "value: any, members: object, map: object")
    }

    @Test("Every listed name has an entry, even one the enum has no case for")
    func everyName() {
        #expect(Set(Intent.arguments.keys) == Set(Intent.names))
        #expect(Intent.arguments["notACase"] == [])
    }

    @MainActor
    @Observable
    final class SlipViewModel: ViewModel {
        typealias Intent = IntentArgumentTests.Intent
        func handle(_ intent: Intent) async {}
    }

    @Test("A descriptor names the intents its ViewModel lists but its Intent enum has no case for")
    func unknownIntents() {
        let slipped = ScreenDescriptor(route: "shop.list", viewModel: SlipViewModel.self)
        #expect(slipped.unknownIntents == ["notACase"])
        #expect(ScreenDescriptor(route: "shop.list", viewModel: UnknownMemberTests.ViewModel.self).unknownIntents == [])
        #expect(ScreenDescriptor(route: "shop.list", intents: ["notACase"]).unknownIntents == [])
    }

    @Test("A screen descriptor carries its ViewModel's intent arguments, and its JSON form round-trips them")
    func descriptor() throws {
        let argument = IntentArgument(name: "text", type: "string")
        let descriptor = ScreenDescriptor(
            route: "shop.list",
            intents: ["onChangedFilter"],
            intentArguments: ["onChangedFilter": [argument]]
        )
        let json = try JSONValueEncoder().encode(descriptor)
        #expect(json["intentArguments"] == ["onChangedFilter": [["name": "text", "type": "string"]]])
        #expect(try JSONValueDecoder().decode(ScreenDescriptor.self, from: json) == descriptor)
        // Written by an SDK before 2.2.0: no intentArguments.
        let older: JSONValue = ["route": "shop.list", "parameters": [], "intents": [], "summary": ""]
        #expect(try JSONValueDecoder().decode(ScreenDescriptor.self, from: older).intentArguments == [:])
    }
}

/// Intents and routes refuse members their case does not read: a misspelt optional argument is an error, not nothing.
@Suite("Unknown intent arguments and route parameters")
struct UnknownMemberTests {
    enum Intent: ViewModelIntent {
        case onTappedRetry
        case onChangedFilter(text: String, limit: Int?)

        static let names = ["onTappedRetry", "onChangedFilter"]
    }

    @MainActor
    @Observable
    final class ViewModel: NavHostKit.ViewModel {
        func handle(_ intent: Intent) async {}
    }

    @Test("An argument the case does not read is refused, naming it; optional ones absent or present are fine")
    func unknownArgument() throws {
        #expect(throws: Never.self) {
            try IntentMessage(name: "onChangedFilter", arguments: ["text": "a"]).decode(as: Intent.self)
        }
        #expect(throws: Never.self) {
            try IntentMessage(name: "onChangedFilter", arguments: ["text": "a", "limit": 3]).decode(as: Intent.self)
        }
        let misspelt = IntentMessage(name: "onChangedFilter", arguments: ["text": "a", "limt": 3])
        #expect(
            throws: IntentError.invalidArguments(
                intent: "onChangedFilter",
                reason: #"JSON unknownMember: unknown member "limt" (at limt)"#
            )
        ) { try misspelt.decode(as: Intent.self) }
        let none = IntentMessage(name: "onTappedRetry", arguments: ["x": 1])
        #expect(
            throws: IntentError.invalidArguments(
                intent: "onTappedRetry",
                reason: #"JSON unknownMember: unknown member "x": it takes none (at x)"#
            )
        ) { try none.decode(as: Intent.self) }
    }

    @Test("Errors name the member from the arguments, not from the case's name")
    func paths() throws {
        #expect(
            throws: IntentError.invalidArguments(
                intent: "onChangedFilter",
                reason: #"JSON typeMismatch: expected a string, found int (at text)"#
            )
        ) { try IntentMessage(name: "onChangedFilter", arguments: ["text": 5]).decode(as: Intent.self) }
    }

    @Test("A missing argument beside an unread one spelt almost like it says so; one spelt otherwise does not")
    func misspeltRequiredArgument() throws {
        #expect(
            throws: IntentError.invalidArguments(
                intent: "onChangedFilter",
                reason: #"JSON keyNotFound: missing member "text" (the arguments hold "txet": misspelt?) (at text)"#
            )
        ) { try IntentMessage(name: "onChangedFilter", arguments: ["txet": "a"]).decode(as: Intent.self) }
        #expect(
            throws: IntentError.invalidArguments(
                intent: "onChangedFilter",
                reason: #"JSON keyNotFound: missing member "text" (at text)"#
            )
        ) { try IntentMessage(name: "onChangedFilter", arguments: ["query": "a"]).decode(as: Intent.self) }
    }

    @Test("A value an argument's own type refuses is said like the decoder's own errors, not in Swift's debug form")
    func refusedByTheArgumentsType() throws {
        enum Theme: String, Decodable { case light, dark }
        enum Intent: ViewModelIntent {
            case onPickedTheme(theme: Theme)
            static let names = ["onPickedTheme"]
        }
        #expect(
            throws: IntentError.invalidArguments(
                intent: "onPickedTheme",
                reason: #"JSON dataCorrupted: Cannot initialize Theme from invalid String value purple (at theme)"#
            )
        ) { try IntentMessage(name: "onPickedTheme", arguments: ["theme": "purple"]).decode(as: Intent.self) }
    }

    @Test("A value a CaseIterable enum argument refuses is answered with the values it takes")
    func refusedByAnEnumThatListsItsCases() throws {
        enum Theme: String, CaseIterable, Decodable { case light, dark, system }
        enum Intent: ViewModelIntent {
            case onPickedTheme(theme: Theme)
            case onPickedThemes(themes: [Theme])
            static let names = ["onPickedTheme", "onPickedThemes"]
        }
        let expected = "Cannot initialize Theme from invalid String value purple; it takes light, dark, system"
        #expect(
            throws: IntentError.invalidArguments(
                intent: "onPickedTheme",
                reason: "JSON dataCorrupted: \(expected) (at theme)"
            )
        ) { try IntentMessage(name: "onPickedTheme", arguments: ["theme": "purple"]).decode(as: Intent.self) }
        #expect(
            throws: IntentError.invalidArguments(
                intent: "onPickedThemes",
                reason: "JSON dataCorrupted: \(expected) (at themes[1])"
            )
        ) {
            try IntentMessage(name: "onPickedThemes", arguments: ["themes": ["dark", "purple"]]).decode(as: Intent.self)
        }
    }

    @Test("A route parameter the route does not declare is refused")
    func unknownParameter() throws {
        enum ShopRoute: Route {
            case list
            case detail(productID: String)
            static let namespace = "shop"
        }
        #expect(throws: Never.self) {
            try RouteRequest(id: "shop.detail", parameters: ["productID": "p3"]).decode(as: ShopRoute.self)
        }
        #expect(throws: RouteError.self) {
            try RouteRequest(id: "shop.detail", parameters: ["productID": "p3", "productId": "p4"]).decode(
                as: ShopRoute.self
            )
        }
        #expect(throws: RouteError.self) {
            try RouteRequest(id: "shop.list", parameters: ["foo": 1]).decode(as: ShopRoute.self)
        }
    }
}
