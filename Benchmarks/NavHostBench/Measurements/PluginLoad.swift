/// Plugin load times as the plugin registry measures them: for each plugin, from its manifest checks through the
/// library's SHA-256, `dlopen`, the entry point and registration in the catalog. The registry logs each load
/// (`Loaded a plugin navhost.plugin=Home navhost.plugin.duration="0.0012 seconds" …`); this reads those lines from a
/// daemon's log.
enum PluginLoad {
    /// The load duration of each plugin the log shows loading, in nanoseconds, by plugin name.
    static func durations(inLog path: String) -> [String: UInt64] {
        var result: [String: UInt64] = [:]
        for line in (readFile(path) ?? "").split(separator: "\n") where line.contains("Loaded a plugin") {
            guard let name = value(of: "navhost.plugin", in: line),
                let duration = value(of: "navhost.plugin.duration", in: line),
                let seconds = Double(duration.split(separator: " ").first ?? "")
            else { continue }
            result[name] = UInt64((seconds * 1e9).rounded())
        }
        return result
    }

    /// The value of `key=value` or `key="quoted value"` in a log line.
    private static func value(of key: String, in line: Substring) -> String? {
        guard let range = line.firstRange(of: " \(key)=") else { return nil }
        let rest = line[range.upperBound...]
        if rest.first == "\"" {
            let quoted = rest.dropFirst()
            return String(quoted.prefix { $0 != "\"" })
        }
        return String(rest.prefix { $0 != " " })
    }
}
