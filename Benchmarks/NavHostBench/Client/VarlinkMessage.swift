/// Prepared Varlink calls: the bytes of one message with its NUL terminator, built once and written many times.
enum VarlinkMessage {
    /// A call of `method` with `parameters`, already JSON text (an object).
    static func call(_ method: String, parameters: String = "{}", more: Bool = false) -> [UInt8] {
        let flag = more ? #","more":true"# : ""
        return Array(#"{"method":"\#(method)","parameters":\#(parameters)\#(flag)}"#.utf8) + [0]
    }

    /// `io.navhost.Navigation.Send` of `intent` with `arguments` (JSON text) to the top screen of `session`.
    static func send(session: String, intent: String, arguments: String) -> [UInt8] {
        call(
            "io.navhost.Navigation.Send",
            parameters: #"{"session":"\#(session)","intent":"\#(intent)","arguments":\#(arguments)}"#
        )
    }

    /// `io.navhost.Navigation.Watch` of `session`, with `more`.
    static func watch(session: String) -> [UInt8] {
        call("io.navhost.Navigation.Watch", parameters: #"{"session":"\#(session)"}"#, more: true)
    }

    /// `org.varlink.service.GetInfo`.
    static let getInfo = call("org.varlink.service.GetInfo")
}
