public import NavHostJSON
public import NavHostKit

/// What a session's flight recorder hands out, and what `navctl record` saves as a `.navrec` file: a header line,
/// then one line per call, each a JSON object (docs/recording.md describes every member).
///
/// ```json
/// {"format":"navhost-recording","version":1,"session":"main","root":{"route":"home.main","parameters":{}},…}
/// {"call":{"method":"Navigate","route":"products.list","parameters":{}},"revision":8,…}
/// ```
public struct SessionRecording: Sendable, Hashable {
    /// The value of the header's `format` member.
    public static let format = "navhost-recording"
    /// The format's version this daemon writes and reads.
    public static let version = 1

    /// The stack a recording starts from, and the random numbers the features drew before its first call.
    public struct Base: Sendable, Hashable, Codable {
        /// The session's revision then.
        public var revision: UInt64
        /// The stack then, root first.
        public var stack: [RecordedScreen]
        /// Random numbers drawn before the first call, 16 hex digits each.
        public var random: [String]

        public init(revision: UInt64, stack: [RecordedScreen], random: [String] = []) {
            self.revision = revision
            self.stack = stack
            self.random = random
        }

        /// The stack `call` left, and the random numbers drawn from it on: where a recording that starts after it
        /// begins.
        public init(after call: RecordedCall) {
            self.init(revision: call.revision, stack: call.stack, random: call.random)
        }

        private enum CodingKeys: String, CodingKey {
            case revision, stack, random
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            revision = try container.decode(UInt64.self, forKey: .revision)
            stack = try container.decode([RecordedScreen].self, forKey: .stack)
            random = try container.decodeIfPresent([String].self, forKey: .random) ?? []
        }

        /// `random` is left out when there are none.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(revision, forKey: .revision)
            try container.encode(stack, forKey: .stack)
            if !random.isEmpty { try container.encode(random, forKey: .random) }
        }
    }

    /// A plugin that was loaded when the recording was made.
    public struct Plugin: Sendable, Hashable, Codable {
        public var name: String
        public var version: String

        public init(name: String, version: String) {
            self.name = name
            self.version = version
        }
    }

    /// The first line.
    public struct Header: Sendable, Hashable, Codable {
        public var format: String
        public var version: Int
        /// The session it was recorded in.
        public var session: String
        /// The route the session was configured to start at.
        public var root: RouteRequest
        /// The plugins loaded when it was saved, by name.
        public var plugins: [Plugin]
        /// The stack before the first call.
        public var base: Base
        /// How many earlier calls the recorder no longer held.
        public var dropped: Int

        public init(session: String, root: RouteRequest, plugins: [Plugin], base: Base, dropped: Int) {
            self.format = SessionRecording.format
            self.version = SessionRecording.version
            self.session = session
            self.root = root
            self.plugins = plugins
            self.base = base
            self.dropped = dropped
        }
    }

    public var header: Header
    /// The calls, oldest first.
    public var calls: [RecordedCall]

    public init(header: Header, calls: [RecordedCall]) {
        self.header = header
        self.calls = calls
    }

    /// The random numbers the recording holds, in the order the features drew them.
    public var randomNumbers: [UInt64] {
        (header.base.random + calls.flatMap(\.random)).compactMap(UInt64.init(recordedHex:))
    }
}

// MARK: - JSON

extension SessionRecording {
    /// The recording as one JSON object, `{"header": {…}, "calls": [{…}, …]}`: how `Recording` answers and `Replay`
    /// takes it.
    public var jsonValue: JSONValue {
        get throws {
            let encoder = JSONValueEncoder()
            return [
                "header": try encoder.encode(header),
                "calls": .array(try calls.map { try encoder.encode($0) }),
            ]
        }
    }

    /// Reads a recording from its JSON object form.
    ///
    /// - Throws: ``RecordingError`` naming what does not fit.
    public init(jsonValue: JSONValue) throws(RecordingError) {
        guard let object = jsonValue.objectValue, let header = object["header"], let calls = object["calls"]?.arrayValue
        else { throw RecordingError("a recording is an object with a header and calls") }
        try self.init(headerValue: header, callValues: calls)
    }

    /// The `.navrec` form: the header, then each call, one JSON object per line.
    public func jsonLines() throws -> String {
        let encoder = JSONValueEncoder()
        var lines = [try encoder.encode(header).serializedString()]
        for call in calls { lines.append(try encoder.encode(call).serializedString()) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads the `.navrec` form; blank lines are skipped.
    ///
    /// - Throws: ``RecordingError`` naming the line that does not fit.
    public init(jsonLines text: String) throws(RecordingError) {
        var values: [JSONValue] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            do {
                values.append(try JSONParser().parse(String(line)))
            } catch {
                throw RecordingError("line \(number + 1) is not JSON: \(error.message)")
            }
        }
        guard let header = values.first else { throw RecordingError("the recording is empty") }
        try self.init(headerValue: header, callValues: Array(values.dropFirst()))
    }

    private init(headerValue: JSONValue, callValues: [JSONValue]) throws(RecordingError) {
        let decoder = JSONValueDecoder()
        guard headerValue.objectValue?["format"]?.stringValue == Self.format else {
            throw RecordingError("the first line is not a NavHost recording's header (format \"\(Self.format)\")")
        }
        let version = headerValue.objectValue?["version"]?.intValue
        guard version == Int64(Self.version) else {
            throw RecordingError("format version \(version.map(String.init) ?? "?") is not \(Self.version)")
        }
        do {
            header = try decoder.decode(Header.self, from: headerValue)
        } catch {
            throw RecordingError("the header does not fit: \(error)")
        }
        var calls: [RecordedCall] = []
        for (index, value) in callValues.enumerated() {
            do {
                calls.append(try decoder.decode(RecordedCall.self, from: value))
            } catch {
                throw RecordingError("call \(index + 1) does not fit: \(error)")
            }
        }
        self.calls = calls
    }
}

/// Why a recording cannot be read.
public struct RecordingError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
