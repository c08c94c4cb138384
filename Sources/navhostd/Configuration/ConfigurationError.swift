/// Why a configuration file was refused: the file, the line and column, the key, and what is wrong, as
/// `/etc/navhost/navhostd.conf:12:20: limits.max-connections: must be at least 1, not 0`.
struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    var file: String
    var line: Int?
    var column: Int?
    /// The setting at fault, as a dotted path like `sessions.kiosk.root`; `nil` when the file as a whole is.
    var key: String?
    var message: String

    init(file: String, line: Int? = nil, column: Int? = nil, key: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        self.message = message
    }

    var description: String {
        var place = file
        if let line { place += ":\(line)" }
        if let column { place += ":\(column)" }
        return "\(place): \(key.map { "\($0): " } ?? "")\(message)"
    }
}
