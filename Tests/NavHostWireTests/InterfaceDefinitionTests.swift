import NavHostJSON
import NavHostKit
import NavHostVarlink
import Testing

@testable import NavHostWire

/// The wire types against the interface definitions they implement, so that neither can change without the other.
///
/// For every method of `io.navhost.Navigation` and `io.navhost.Plugins` there are samples of its input and of its
/// replies, each built from the wire types (`SendParameters(…).jsonObject`, `PushResult(…).jsonObject`, a
/// `PluginInfo` encoded). The test checks three things:
/// - each sample is valid for the method as the `.varlink` file declares it: no member the definition does not list,
///   every member of its declared type (the daemon's own validator);
/// - together the samples use every member the definition declares, at any depth, and every name of every
///   enumeration: a member added to the definition and not to the types fails here;
/// - each sample reads back into its type and writes the same JSON again.
@Suite("Wire model: the types of both interfaces against their .varlink definitions")
struct InterfaceDefinitionTests {
    @Test("Every method of io.navhost.Navigation has samples that fit its definition and use all of it")
    func navigation() throws {
        try check(InterfaceDefinitions.navigation, samples: Self.navigationSamples)
    }

    @Test("Every method of io.navhost.Plugins has samples that fit its definition and use all of it")
    func plugins() throws {
        try check(InterfaceDefinitions.plugins, samples: Self.pluginsSamples)
    }

    @Test("The error names are the ones each definition declares, no more and no fewer")
    func errorNames() throws {
        let navigation = try VarlinkInterface(parsing: InterfaceDefinitions.navigation)
        #expect(Set(navigation.errors.keys) == Set(NavigationErrorName.allCases.map(\.rawValue)))
        #expect(navigation.name == NavHostInterfaceName.navigation)
        let plugins = try VarlinkInterface(parsing: InterfaceDefinitions.plugins)
        #expect(Set(plugins.errors.keys) == Set(PluginsErrorName.allCases.map(\.rawValue)))
        #expect(plugins.name == NavHostInterfaceName.plugins)
    }

    @Test("Each parameters type reads back what it writes")
    func parametersRoundTrip() throws {
        #expect(SessionParameters(Self.sessionParameters.jsonObject) == Self.sessionParameters)
        #expect(NameParameters(NameParameters(name: "Products").jsonObject) == NameParameters(name: "Products"))
        #expect(RouteParameters(Self.routeParameters.jsonObject) == Self.routeParameters)
        #expect(ReplaceParameters(Self.replaceParameters.jsonObject) == Self.replaceParameters)
        #expect(SendParameters(Self.sendParameters.jsonObject) == Self.sendParameters)
        #expect(try WatchParameters(Self.watchParameters.jsonObject) == Self.watchParameters)
        #expect(try OpenSessionParameters(Self.openSessionParameters.jsonObject) == Self.openSessionParameters)
        #expect(try ReplayParameters(Self.replayParameters.jsonObject) == Self.replayParameters)
        #expect(PathParameters(PathParameters(path: "/p").jsonObject) == PathParameters(path: "/p"))
    }

    @Test("Values a method cannot take are refused, naming the parameter")
    func invalidParameters() {
        #expect(throws: InvalidParameterError("changes")) { try WatchParameters(["changes": "diffs"]) }
        #expect(throws: InvalidParameterError("options.maxStackDepth")) {
            try OpenSessionParameters(["name": "a", "root": "r", "options": ["maxStackDepth": 0]])
        }
        #expect(throws: InvalidParameterError("options.intentTimeoutMilliseconds")) {
            try OpenSessionParameters(["name": "a", "root": "r", "options": ["intentTimeoutMilliseconds": -1]])
        }
        #expect(throws: InvalidParameterError("to")) { try ReplayParameters(["recording": [:], "to": -1]) }
    }
}

// MARK: - Checking

/// What one method is given and answers, as samples.
private struct MethodSamples {
    var inputs: [JSONObject]
    /// Each reply, with a check that it reads back into its type and writes the same JSON (`nil`: none to check).
    var outputs: [(reply: JSONObject, roundTrip: ((JSONObject) throws -> JSONObject)?)]
}

extension InterfaceDefinitionTests {
    private func check(_ definition: String, samples: [String: MethodSamples]) throws {
        let interface = try VarlinkInterface(parsing: definition)
        #expect(Set(samples.keys) == Set(interface.methods.keys), "a method without samples, or samples without one")
        for (name, method) in interface.methods.sorted(by: { $0.key < $1.key }) {
            guard let sample = samples[name] else { continue }
            var covered = Set<String>()
            for input in sample.inputs {
                #expect(throws: Never.self, "\(name) input \(input)") { try interface.validateInput(input, of: method) }
                covered.formUnion(Self.paths(in: .object(input), at: "in"))
            }
            for (reply, roundTrip) in sample.outputs {
                #expect(interface.firstInvalidOutput(reply, of: method) == nil, "\(name) reply \(reply)")
                covered.formUnion(Self.paths(in: .object(reply), at: "out"))
                if let roundTrip { #expect(try roundTrip(reply) == reply, "\(name) reply reads back") }
            }
            var declared = Set<String>()
            Self.declare(method.input, at: "in", in: interface, into: &declared, expanding: [])
            Self.declare(method.output, at: "out", in: interface, into: &declared, expanding: [])
            let unused = declared.subtracting(covered).sorted()
            #expect(unused.isEmpty, "\(name): the samples never use \(unused)")
        }
    }

    /// Every member path and enumeration name the definition declares: `out.snapshot.stack[].presentation=modal`.
    private static func declare(
        _ fields: [VarlinkField],
        at path: String,
        in interface: VarlinkInterface,
        into declared: inout Set<String>,
        expanding: Set<String>
    ) {
        for field in fields {
            let fieldPath = "\(path).\(field.name)"
            declared.insert(fieldPath)
            declare(field.type, at: fieldPath, in: interface, into: &declared, expanding: expanding)
        }
    }

    private static func declare(
        _ type: VarlinkType,
        at path: String,
        in interface: VarlinkInterface,
        into declared: inout Set<String>,
        expanding: Set<String>
    ) {
        switch type {
        case .optional(let wrapped):
            declare(wrapped, at: path, in: interface, into: &declared, expanding: expanding)
        case .array(let element):
            declare(element, at: "\(path)[]", in: interface, into: &declared, expanding: expanding)
        case .map(let element):
            declare(element, at: "\(path).*", in: interface, into: &declared, expanding: expanding)
        case .named(let name):
            guard !expanding.contains(name), let declaration = interface.types[name] else { return }
            declare(declaration.type, at: path, in: interface, into: &declared, expanding: expanding.union([name]))
        case .structure(let fields):
            declare(fields, at: path, in: interface, into: &declared, expanding: expanding)
        case .enumeration(let names):
            declared.formUnion(names.map { "\(path)=\($0)" })
        case .bool, .int, .float, .string, .object, .any:
            break
        }
    }

    /// Every member path a value uses, and every string at the end of one (which covers enumeration names); an object's
    /// members also as a map's (`.*`).
    private static func paths(in value: JSONValue, at path: String) -> Set<String> {
        switch value {
        case .object(let members):
            var found = Set<String>()
            for (key, member) in members where member != .null {
                found.insert("\(path).\(key)")
                found.formUnion(paths(in: member, at: "\(path).\(key)"))
                // As a map's value, too (`declare` writes a map's keys as `*`).
                found.formUnion(paths(in: member, at: "\(path).*"))
            }
            return found
        case .array(let elements):
            return elements.reduce(into: Set<String>()) { $0.formUnion(paths(in: $1, at: "\(path)[]")) }
        case .string(let text):
            return ["\(path)=\(text)"]
        default:
            return []
        }
    }

    /// Reads `reply` as a `T` and writes it again.
    private static func roundTrip<T: Codable>(_ type: T.Type) -> (JSONObject) throws -> JSONObject {
        { reply in
            let value = try JSONValueDecoder().decode(T.self, from: .object(reply))
            return try JSONValueEncoder().encode(value).objectValue ?? [:]
        }
    }

    private static func encoded(_ value: some Encodable) -> JSONObject {
        (try? JSONValueEncoder().encode(value).objectValue) ?? ["unencodable": true]
    }
}

// MARK: - io.navhost.Navigation samples

extension InterfaceDefinitionTests {
    private static let root = ScreenSnapshot(
        id: ScreenID("s1"),
        route: RouteRequest(id: "home.main"),
        presentation: .push,
        state: ["greeting": "hello"]
    )
    private static let modal = ScreenSnapshot(
        id: ScreenID("s2"),
        route: RouteRequest(id: "products.detail", parameters: ["productID": "p3"]),
        presentation: .modal,
        state: ["status": "loaded"],
        error: "the intent onTappedBuy ran out of time"
    )
    private static let snapshot = SessionSnapshot(session: "main", revision: 7, stack: [root, modal])
    private static let events: [SessionEvent] = [
        SessionEvent(revision: 8, change: .pushed(modal)),
        SessionEvent(revision: 8, change: .pushed(root)),
        SessionEvent(revision: 9, change: .popped([modal.id])),
        SessionEvent(revision: 10, change: .replaced([root, modal])),
        SessionEvent(revision: 11, change: .stateChanged(root.id, ["greeting": "hi"])),
        SessionEvent(revision: 12, change: .errorChanged(modal.id, "timed out")),
    ]

    private static let sessionParameters = SessionParameters(session: "passenger")
    private static let routeParameters = RouteParameters(
        session: "passenger",
        route: "products.detail",
        parameters: ["productID": "p3"]
    )
    private static let replaceParameters = ReplaceParameters(
        session: "passenger",
        routes: [RouteRequest(id: "home.main"), RouteRequest(id: "products.detail", parameters: ["productID": "p3"])]
    )
    private static let sendParameters = SendParameters(
        session: "passenger",
        screen: ScreenID("s2"),
        intent: "onChangedFilter",
        arguments: ["text": "lamp"]
    )
    private static let watchParameters = WatchParameters(session: "passenger", resumeFrom: 3, changes: .mergePatch)
    private static let openSessionParameters = OpenSessionParameters(
        name: "passenger",
        root: "home.main",
        parameters: ["seat": "12A"],
        maxStackDepth: 8,
        intentTimeoutMilliseconds: 500
    )
    private static let replayParameters = ReplayParameters(
        recording: ["format": "navhost.recording"],
        session: "r",
        to: 9
    )

    private static var pop: (JSONObject, ((JSONObject) throws -> JSONObject)?) {
        (PopResult(revision: 9, removed: [ScreenID("s2")]).jsonObject, roundTrip(PopResult.self))
    }
    private static var push: [(JSONObject, ((JSONObject) throws -> JSONObject)?)] {
        [root, modal].map { (PushResult(revision: 8, screen: $0).jsonObject, roundTrip(PushResult.self)) }
    }
    private static var stack: (JSONObject, ((JSONObject) throws -> JSONObject)?) {
        (StackReply(snapshot: snapshot).jsonObject, roundTrip(StackReply.self))
    }

    private static var navigationSamples: [String: MethodSamples] {
        [
            "Sessions": MethodSamples(
                inputs: [[:]],
                outputs: [(SessionsReply(sessions: ["main", "passenger"]).jsonObject, roundTrip(SessionsReply.self))]
            ),
            "OpenSession": MethodSamples(inputs: [openSessionParameters.jsonObject], outputs: [stack]),
            "CloseSession": MethodSamples(
                inputs: [NameParameters(name: "passenger").jsonObject],
                outputs: [(encoded(EmptyReply()), roundTrip(EmptyReply.self))]
            ),
            "WatchSessions": MethodSamples(
                inputs: [[:]],
                outputs: [
                    (SessionListReply.sessions(["main"], coalesced: true).jsonObject, nil),
                    (SessionListReply.event(SessionListEvent(.opened, "passenger")).jsonObject, nil),
                    (SessionListReply.event(SessionListEvent(.closed, "passenger")).jsonObject, nil),
                ]
            ),
            "Stack": MethodSamples(inputs: [sessionParameters.jsonObject], outputs: [stack]),
            "Routes": MethodSamples(
                inputs: [[:]],
                outputs: [
                    (
                        encoded(
                            RoutesReply(routes: [
                                RouteInfo(
                                    route: "products.detail",
                                    feature: "Products",
                                    parameters: ["productID"],
                                    intents: ["onTappedBuy", "onTappedRetry"],
                                    summary: "One product",
                                    intentArguments: [
                                        "onTappedBuy": [
                                            IntentArgument(name: "quantity", type: "?int"),
                                            IntentArgument(name: "size", type: "string", values: ["s", "m", "l"]),
                                        ],
                                        "onTappedRetry": [],
                                    ]
                                )
                            ])
                        ),
                        roundTrip(RoutesReply.self)
                    )
                ]
            ),
            "Navigate": MethodSamples(inputs: [routeParameters.jsonObject], outputs: push),
            "Present": MethodSamples(inputs: [routeParameters.jsonObject], outputs: push),
            "Pop": MethodSamples(inputs: [sessionParameters.jsonObject], outputs: [pop]),
            "PopToRoot": MethodSamples(inputs: [sessionParameters.jsonObject], outputs: [pop]),
            "PopTo": MethodSamples(inputs: [routeParameters.jsonObject], outputs: [pop]),
            "Dismiss": MethodSamples(inputs: [sessionParameters.jsonObject], outputs: [pop]),
            "Replace": MethodSamples(
                inputs: [replaceParameters.jsonObject],
                outputs: [
                    (ReplaceResult(revision: 10, stack: [root, modal]).jsonObject, roundTrip(ReplaceResult.self))
                ]
            ),
            "Send": MethodSamples(
                inputs: [sendParameters.jsonObject],
                outputs: [
                    (SendResult(revision: 11, screen: modal).jsonObject, roundTrip(SendResult.self)),
                    (SendResult(revision: 11, screen: root).jsonObject, roundTrip(SendResult.self)),
                    (SendResult(revision: 12, screen: nil).jsonObject, roundTrip(SendResult.self)),
                ]
            ),
            "Watch": MethodSamples(
                inputs: [watchParameters.jsonObject],
                outputs: [
                    (WatchReply.snapshot(snapshot, coalesced: true).jsonObject, nil),
                    (WatchReply.document(snapshot.document, coalesced: true).jsonObject, nil),
                    (WatchReply.patch(["revision": 8]).jsonObject, nil),
                ] + events.map { (WatchReply.event($0).jsonObject, nil) }
            ),
            "Recording": MethodSamples(
                inputs: [sessionParameters.jsonObject],
                outputs: [
                    (
                        RecordingReply(recording: ["format": "navhost.recording"]).jsonObject,
                        roundTrip(RecordingReply.self)
                    )
                ]
            ),
            "Replay": MethodSamples(
                inputs: [replayParameters.jsonObject],
                outputs: [
                    (
                        encoded(
                            ReplayReport(
                                session: "r",
                                calls: 2,
                                revision: 9,
                                difference: ReplayReport.Difference(
                                    call: 2,
                                    method: "Send",
                                    revision: 9,
                                    replayedRevision: 9,
                                    recordedError: "IntentFailed",
                                    replayedError: "IntentNotFound",
                                    recorded: ["0": ["route": "home.main"]],
                                    replayed: ["0": ["route": "home.main"]],
                                    patch: ["0": ["state": ["n": 2]]]
                                ),
                                warnings: ["Dice is not loaded"],
                                leftOpen: true
                            )
                        ),
                        roundTrip(ReplayReport.self)
                    )
                ]
            ),
        ]
    }
}

// MARK: - io.navhost.Plugins samples

extension InterfaceDefinitionTests {
    private static let quarantine = PluginInfo.Quarantine(code: "checksumMismatch", message: "the library changed")
    private static let loaded = {
        var plugin = loadedWithoutBuild
        plugin.sha256 = String(repeating: "ab", count: 32)
        plugin.lastRefusedBuild = String(repeating: "cd", count: 32)
        plugin.triedAt = 1_764_400_000_000
        plugin.lostAtReload = [lostScreens]
        plugin.servingSince = 1_764_399_990_000
        plugin.replacedVersion = "0.9.0"
        return plugin
    }()
    private static let lostScreens = PluginInfo.LostScreens(
        session: "main",
        startedFresh: ["s2"],
        removed: ["s3", "s4"],
        keptAside: "/var/lib/navhost/sessions/main.json.lost-1764400000000"
    )
    private static let loadedWithoutBuild = PluginInfo(
        name: "Products",
        version: "1.1.0",
        state: .loaded,
        path: "/var/lib/navhost/plugins/Products-2.so",
        sdkVersion: "1.0.0",
        routes: ["products.list"],
        lastReloadFailure: quarantine,
        removalRefused: PluginInfo.RemovalRefused(neededBy: ["Home"], rootOf: ["main"], message: "needed by Home"),
        folder: "/srv/plugins/Products",
        loadedByHand: true
    )
    private static let refused = PluginInfo(
        name: "Broken",
        version: "0.1.0",
        state: .quarantined,
        path: "/usr/lib/navhost/plugins/Broken",
        routes: [],
        quarantine: quarantine
    )
    private static let removed = PluginInfo(
        name: "Orders",
        version: "1.0.0",
        state: .removed,
        path: "/usr/lib/navhost/plugins/Orders",
        routes: ["orders.list"],
        unloadedByHand: true
    )
    private static var pluginReply: [(JSONObject, ((JSONObject) throws -> JSONObject)?)] {
        [loaded, refused, removed].map { (encoded(PluginReply(plugin: $0)), roundTrip(PluginReply.self)) }
    }

    private static var pluginsSamples: [String: MethodSamples] {
        [
            "List": MethodSamples(
                inputs: [[:]],
                outputs: [
                    (encoded(PluginListReply(plugins: [loaded, refused, removed])), roundTrip(PluginListReply.self)),
                    (
                        encoded(
                            PluginListReply(
                                plugins: [],
                                pluginsFolder: "/usr/lib/navhost/plugins",
                                watchesPluginsFolder: true
                            )
                        ),
                        roundTrip(PluginListReply.self)
                    ),
                ]
            ),
            "Watch": MethodSamples(
                inputs: [[:]],
                outputs: [
                    (
                        (try? PluginWatchReply.plugins([loaded, refused, removed], coalesced: true).jsonObject())
                            ?? [:], nil
                    )
                ]
                    + [
                        PluginEvent(kind: .loaded, name: "Products", version: "1.0.0", path: "/p/Products.so"),
                        PluginEvent(kind: .reloaded, name: "Products", version: "1.1.0", previousVersion: "1.0.0"),
                        PluginEvent(kind: .reloaded, name: "Products", version: "2.0.0", lost: [lostScreens]),
                        PluginEvent(kind: .removed, name: "Orders", version: "1.0.0", folder: "/srv/plugins/Orders"),
                        PluginEvent(kind: .failed, name: "Broken", folder: "/srv/plugins/Broken", reason: quarantine),
                        PluginEvent(kind: .checked, name: "Orders", version: "1.0.0", folder: "/srv/plugins/Orders"),
                    ].map { ((try? PluginWatchReply.event($0).jsonObject()) ?? [:], nil) }
            ),
            "Load": MethodSamples(
                inputs: [PathParameters(path: "/srv/plugins/Orders").jsonObject],
                outputs: pluginReply
            ),
            "Reload": MethodSamples(inputs: [NameParameters(name: "Products").jsonObject], outputs: pluginReply),
            "Unload": MethodSamples(
                inputs: [NameParameters(name: "Orders").jsonObject],
                outputs: [(encoded(EmptyReply()), roundTrip(EmptyReply.self))]
            ),
        ]
    }
}
