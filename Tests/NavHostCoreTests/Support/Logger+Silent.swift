import Logging

extension Logger {
    /// A logger that drops everything.
    static let silent = Logger(label: "navhost.test") { _ in SwiftLogNoOpLogHandler() }
}
