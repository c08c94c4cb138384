import Glibc
import Logging
import NavHostCommandLine
import NavHostCore
import NavHostKit
import NavHostSocketPath
import NavHostSpelling
import NavHostStorage

/// `navhostd.conf` and its drop-ins: YAML, read with libyaml (``YAMLNode``), checked key by key.
///
/// ```yaml
/// plugins: /usr/lib/navhost/plugins
/// log-level: info
/// sessions:
///   main: home.main
///   passenger:
///     root: products.list
///     max-stack-depth: 16
/// control:
///   users: [1000]
///   groups: [navhost]
/// limits:
///   max-connections: 256
///   intent-timeout: 10s
/// ```
///
/// The file `path` is read first, then each `*.conf` of the folder `path.d/` in name order, each overriding what
/// came before (sessions by name; `name: null` takes a session out). Every key is the long option's name without
/// its dashes; an unknown key, a value of the wrong type or out of range is refused with a ``ConfigurationError``
/// that names the file, the line and the key (and the key an unknown one is probably a slip for, when one is spelt
/// close to it). `docs/configuration.md` and `navhostd.conf(5)` describe every key.
enum ConfigurationFile {
    /// The main file navhostd reads when `--config` is not given.
    static let defaultPath = "/etc/navhost/navhostd.conf"

    /// The drop-in folder of the file `path`: `path.d`.
    static func dropInDirectory(of path: String) -> String { "\(path).d" }

    /// What `path` and its drop-ins say, layered.
    ///
    /// - Parameter required: Whether a missing `path` is an error (it was named with `--config`); a missing default
    ///   file means no configuration.
    /// - Returns: The settings, and the files read, in order.
    static func load(_ path: String, required: Bool) throws(ConfigurationError) -> (DaemonSettings, [String]) {
        var files: [String] = []
        var settings = DaemonSettings()
        switch readText(path) {
        case .success(let text):
            settings = try parse(text, file: path)
            files.append(path)
        case .failure(let error):
            if required || error.code != .notFound {
                throw ConfigurationError(file: path, message: "cannot be read: \(error.message)")
            }
        }
        for dropIn in try dropIns(in: dropInDirectory(of: path)) {
            switch readText(dropIn) {
            case .success(let text):
                settings = settings.overridden(by: try parse(text, file: dropIn))
                files.append(dropIn)
            case .failure(let error):
                throw ConfigurationError(file: dropIn, message: "cannot be read: \(error.message)")
            }
        }
        return (settings, files)
    }

    /// What the YAML `text` of `file` says.
    static func parse(_ text: String, file: String) throws(ConfigurationError) -> DaemonSettings {
        let root: YAMLNode?
        do {
            root = try YAMLNode.load(text)
        } catch {
            throw ConfigurationError(
                file: file,
                line: error.mark.line,
                column: error.mark.column,
                message: "not YAML: \(error.problem)"
            )
        }
        guard let root, !root.isNull else { return DaemonSettings() }
        return try Reader(file: file).settings(from: root)
    }

    // MARK: Private

    /// The text of `path`, at most 1 MiB of it.
    private static func readText(_ path: String) -> Result<String, FileAccessError> {
        Result { () throws(FileAccessError) in
            String(decoding: try FileIO.readFile(path, limit: 1 << 20), as: UTF8.self)
        }
    }

    /// The `*.conf` files of `directory`, by name (folders and other non-files are left out); none when it is
    /// missing.
    ///
    /// - Throws: ``ConfigurationError`` when the folder is there but cannot be read.
    private static func dropIns(in directory: String) throws(ConfigurationError) -> [String] {
        guard FileIO.kind(of: directory) != nil else { return [] }
        let entries: [String]
        do {
            entries = try FileIO.directoryEntries(directory)
        } catch {
            throw ConfigurationError(file: directory, message: "cannot be read: \(error)")
        }
        return entries.filter { $0.hasSuffix(".conf") && !$0.hasPrefix(".") }.sorted().map { "\(directory)/\($0)" }
            .filter { FileIO.kind(of: $0) == .regularFile }
    }
}

// MARK: - Reading nodes

/// Turns the YAML nodes of one file into ``DaemonSettings``, naming the file, line and key of anything wrong.
private struct Reader {
    let file: String

    static let topKeys = [
        "socket", "plugins", "state-dir", "log-level", "socket-mode", "watch-plugins", "flight-recorder-on-disk",
        "sessions", "control", "limits",
    ]

    func settings(from root: YAMLNode) throws(ConfigurationError) -> DaemonSettings {
        var settings = DaemonSettings()
        for (key, value, keyNode) in try mapping(root, key: nil) {
            switch key {
            case "socket":
                let socket = try path(value, key: key)
                if let problem = SocketPathLength.problem(with: socket) { throw error(value, key, problem) }
                settings.socket = socket
            case "plugins": settings.plugins = try path(value, key: key)
            case "state-dir": settings.stateDirectory = try path(value, key: key)
            case "log-level":
                let text = try string(value, key: key)
                guard let level = Logger.Level(rawValue: text) else {
                    throw error(
                        value,
                        key,
                        "\"\(text)\" is not a log level: trace, debug, info, notice, warning, error or critical"
                    )
                }
                settings.logLevel = level
            case "socket-mode":
                let text = try string(value, key: key)
                guard let mode = DaemonConfiguration.parseSocketMode(text) else {
                    throw error(value, key, "\"\(text)\" is not an octal mode like \"0660\" (quote it)")
                }
                settings.socketMode = mode
            case "watch-plugins": settings.watchPlugins = try bool(value, key: key)
            case "flight-recorder-on-disk": settings.flightRecorderOnDisk = try bool(value, key: key)
            case "sessions": settings.sessions = try sessions(value)
            case "control": try control(value, into: &settings)
            case "limits": settings.limits = try limits(value)
            default: throw unknown(key, at: keyNode, in: nil, of: root, allowed: Self.topKeys)
            }
        }
        return settings
    }

    // MARK: Sections

    private func sessions(_ node: YAMLNode) throws(ConfigurationError) -> [(
        name: String, session: DaemonSettings.Session?
    )] {
        var sessions: [(name: String, session: DaemonSettings.Session?)] = []
        for (name, value, _) in try mapping(node, key: "sessions") {
            let key = "sessions.\(name)"
            guard SessionConfiguration.isValidName(name) else {
                throw error(value, key, "\"\(name)\" cannot name a session: use 1 to 64 letters, digits, -, _ and .")
            }
            if value.isNull {
                sessions.append((name, nil))
                continue
            }
            if case .scalar = value {
                sessions.append((name, DaemonSettings.Session(root: try route(value, key: key))))
                continue
            }
            var root: RouteRequest?
            var session = DaemonSettings.Session(root: RouteRequest(id: ""))
            var parameters = JSONObject()
            for (field, fieldValue, fieldKeyNode) in try mapping(value, key: key) {
                let fieldKey = "\(key).\(field)"
                switch field {
                case "root": root = try route(fieldValue, key: fieldKey)
                case "parameters": parameters = try object(fieldValue, key: fieldKey)
                // Bounded as the daemon-wide limit of the name is (`LimitSettings`), in one place for both.
                case "max-stack-depth":
                    session.maxStackDepth = try count(fieldValue, key: fieldKey, least: LimitSettings.least(of: field))
                case "intent-timeout":
                    session.intentTimeout = try time(fieldValue, key: fieldKey, mayBeOff: LimitSettings.mayBeOff(field))
                default:
                    throw unknown(
                        field,
                        at: fieldKeyNode,
                        in: key,
                        of: value,
                        allowed: ["root", "parameters", "max-stack-depth", "intent-timeout"]
                    )
                }
            }
            guard let root else { throw error(value, "\(key).root", "a session needs a root route") }
            session.root = RouteRequest(id: root.id, parameters: parameters)
            sessions.append((name, session))
        }
        return sessions
    }

    private func control(_ node: YAMLNode, into settings: inout DaemonSettings) throws(ConfigurationError) {
        for (field, value, keyNode) in try mapping(node, key: "control") {
            let key = "control.\(field)"
            switch field {
            case "users":
                settings.controlUIDs = try list(value, key: key).map { item throws(ConfigurationError) in
                    if let uid = item.int, uid >= 0, uid <= Int(UInt32.max) { return UInt32(uid) }
                    let name = try string(item, key: key)
                    guard let uid = DaemonConfiguration.userID(name) else {
                        throw error(item, key, "no user \"\(name)\"")
                    }
                    return uid
                }
            case "groups":
                settings.controlGroups = try list(value, key: key).map { item throws(ConfigurationError) in
                    let group = try string(item, key: key)
                    guard DaemonConfiguration.groupID(group) != nil else {
                        throw error(item, key, "no group \"\(group)\"")
                    }
                    return group
                }
            default: throw unknown(field, at: keyNode, in: "control", of: node, allowed: ["users", "groups"])
            }
        }
    }

    private func limits(_ node: YAMLNode) throws(ConfigurationError) -> LimitSettings {
        var limits = LimitSettings()
        for (field, value, keyNode) in try mapping(node, key: "limits") {
            let key = "limits.\(field)"
            if let size = LimitSettings.sizes.first(where: { $0.key == field }) {
                let text = try string(value, key: key)
                guard let bytes = ByteCount(argument: text), bytes.bytes >= 1024 else {
                    throw error(value, key, "\"\(text)\" is not a size of at least 1K, like 64K or 1M")
                }
                limits[keyPath: size.path] = bytes.bytes
            } else if let count = LimitSettings.counts.first(where: { $0.key == field }) {
                limits[keyPath: count.path] = try self.count(value, key: key, least: count.least)
            } else if let time = LimitSettings.times.first(where: { $0.key == field }) {
                limits[keyPath: time.path] = try self.time(
                    value,
                    key: key,
                    mayBeOff: time.mayBeOff,
                    inMicroseconds: time.inMicroseconds
                )
            } else {
                throw unknown(field, at: keyNode, in: "limits", of: node, allowed: LimitSettings.keys)
            }
        }
        if let problem = limits.firstProblem(crossChecking: false) {
            throw error(node, "limits.\(problem.key)", problem.message)
        }
        return limits
    }

    // MARK: Values

    /// The members of a mapping, each as its name, its value, and the key's own node (where an unknown key is).
    private func mapping(_ node: YAMLNode, key: String?) throws(ConfigurationError) -> [(String, YAMLNode, YAMLNode)] {
        guard case .mapping(let mapping, _) = node else {
            throw error(node, key ?? "(the file)", "expected a mapping of keys to values, found \(node.kind)")
        }
        var seen: Set<String> = []
        var pairs: [(String, YAMLNode, YAMLNode)] = []
        for (keyNode, value) in mapping {
            guard let name = keyNode.text else {
                throw error(keyNode, key ?? "(the file)", "a key must be plain text")
            }
            let path = key.map { "\($0).\(name)" } ?? name
            guard seen.insert(name).inserted else { throw error(keyNode, path, "is given twice") }
            pairs.append((name, value, keyNode))
        }
        return pairs
    }

    private func string(_ node: YAMLNode, key: String) throws(ConfigurationError) -> String {
        guard let text = node.text, !node.isNull else { throw error(node, key, "expected text, found \(node.kind)") }
        return text
    }

    private func path(_ node: YAMLNode, key: String) throws(ConfigurationError) -> String {
        let text = try string(node, key: key)
        guard text.hasPrefix("/") else { throw error(node, key, "\"\(text)\" is not an absolute path") }
        return text
    }

    private func bool(_ node: YAMLNode, key: String) throws(ConfigurationError) -> Bool {
        guard let value = node.bool else { throw error(node, key, "expected true or false") }
        return value
    }

    private func count(_ node: YAMLNode, key: String, least: Int) throws(ConfigurationError) -> Int {
        guard let value = node.int else {
            throw error(node, key, "expected a whole number, found \(node.text.map { "\"\($0)\"" } ?? node.kind)")
        }
        guard value >= least else { throw error(node, key, "must be at least \(least), not \(value)") }
        return value
    }

    private func time(
        _ node: YAMLNode,
        key: String,
        mayBeOff: Bool,
        inMicroseconds: Bool = false
    ) throws(ConfigurationError) -> TimeLimit {
        let text = try string(node, key: key)
        let limit = inMicroseconds ? TimeLimit(microsecondsArgument: text) : TimeLimit(argument: text)
        guard let limit else {
            let like = inMicroseconds ? "200us, 1ms or 1s" : "30s, 500ms or 2m"
            throw error(node, key, "\"\(text)\" is not a time like \(like)\(mayBeOff ? ", or off" : "")")
        }
        guard mayBeOff || limit.duration != nil else { throw error(node, key, "cannot be off") }
        return limit
    }

    private func route(_ node: YAMLNode, key: String) throws(ConfigurationError) -> RouteRequest {
        let text = try string(node, key: key)
        guard text.contains("."), !text.hasPrefix("."), !text.hasSuffix(".") else {
            throw error(node, key, "\"\(text)\" is not a route ID like home.main")
        }
        return RouteRequest(id: text)
    }

    private func list(_ node: YAMLNode, key: String) throws(ConfigurationError) -> [YAMLNode] {
        if case .sequence(let items, _) = node { return items }
        throw error(node, key, "expected a list, like [a, b]")
    }

    /// A mapping of route parameters, as JSON: text, numbers, booleans, null, lists and mappings.
    private func object(_ node: YAMLNode, key: String) throws(ConfigurationError) -> JSONObject {
        var object = JSONObject()
        for (name, value, _) in try mapping(node, key: key) { object[name] = try json(value, key: "\(key).\(name)") }
        return object
    }

    private func json(_ node: YAMLNode, key: String) throws(ConfigurationError) -> JSONValue {
        switch node {
        case .mapping: return .object(try object(node, key: key))
        case .sequence(let items, _):
            var values: [JSONValue] = []
            for item in items { values.append(try json(item, key: key)) }
            return .array(values)
        case .scalar(let text, _, _):
            if node.isNull { return .null }
            if let value = node.bool { return .bool(value) }
            if let value = node.int { return .int(Int64(value)) }
            if let value = node.double { return .double(value) }
            return .string(text)
        }
    }

    // MARK: Errors

    private func error(_ node: YAMLNode, _ key: String, _ message: String) -> ConfigurationError {
        ConfigurationError(file: file, line: node.mark.line, column: node.mark.column, key: key, message: message)
    }

    /// An unknown key `name` of the mapping `mapping` (at the top, or under `section`): what it reads, and the key
    /// `name` is probably a slip for when one of `allowed` is spelt close to it (``Spelling``), unless the mapping
    /// has that key already (renamed to it, the key would be given twice; nor is another, farther key named instead).
    private func unknown(
        _ name: String,
        at node: YAMLNode,
        in section: String?,
        of mapping: YAMLNode,
        allowed: [String]
    ) -> ConfigurationError {
        var present: Set<String> = []
        if case .mapping(let members, _) = mapping { present = Set(members.compactMap(\.key.text)) }
        let closest = Spelling.closest(to: name, among: allowed, present: present)
        let hint = closest.map { " (did you mean \"\($0)\"?)" } ?? ""
        return error(
            node,
            section.map { "\($0).\(name)" } ?? name,
            "is not a setting navhostd knows\(hint); \(section.map { "under \($0)" } ?? "at the top") it reads "
                + allowed.joined(separator: ", ")
        )
    }
}
