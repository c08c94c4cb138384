import NIOCore
import NavHostJSON
import NavHostVarlink

/// Checks what the server wrote against what the input asked for: the fuzzer's notion of a wrong answer.
///
/// The oracle reads the input the way the protocol defines it (NUL-terminated messages, each a call) with the
/// layer's own parsers, to know which calls the server must answer and in what order. It then holds every message
/// the server wrote to these rules:
///
/// - each write is exactly one message: valid JSON, one NUL at its end and none inside, a well-formed reply;
/// - replies answer the calls in order; a `oneway` call gets none; `continues` only answers a `more` call;
/// - an error reply names an error that the interface it belongs to declares (no internal errors: every refusal
///   NavHost makes is typed);
/// - a successful reply's parameters match the method's output declaration in the interface definition;
/// - when the input holds no protocol violation, every call that wants a reply gets its final reply.
///
/// It also holds the server's two ways of reading a call to each other, message by message: a call that
/// `VarlinkCallReader` reads straight from json-c (the server's way for most calls) must be the call the general
/// reading makes of the message (method, parameters in their order, flags), and the parameters, checked where each
/// keeps them, must get the same verdict against the method's input declaration. A message the general reading
/// refuses, the reader must refuse too. The replies alone would not show a wrong verdict on valid parameters.
///
/// A protocol violation closes the connection and drops replies not yet written, so after one the replies only
/// have to be a prefix of the expected ones.
struct ReplyOracle {
    private let service: VarlinkService
    /// The calls that get replies, in order.
    private var expected: [VarlinkCall] = []
    /// Whether the input breaks the protocol somewhere (the server closes the connection there).
    private(set) var inputBreaksProtocol = false
    private var answered = 0
    private var streaming = false

    /// How many messages the json-c reader read, each held to the general reading: a check that compared nothing
    /// proves nothing.
    private(set) var callsComparedWithTheReader = 0

    /// What went wrong, in words; empty when every reply was right.
    private(set) var violations: [String] = []

    init(input: [UInt8], service: VarlinkService, configuration: VarlinkServerConfiguration) {
        self.service = service
        let parser = JSONParser(maxDepth: configuration.maxJSONDepth)
        let reader = VarlinkCallReader(maxDepth: configuration.maxJSONDepth)
        var rest = input[...]
        while !rest.isEmpty {
            guard let terminator = rest.firstIndex(of: 0) else {
                // The decoder ignores white space after the last message; anything else is a truncated message.
                if rest.count > configuration.maxMessageSize || rest.contains(where: { !Self.isWhitespace($0) }) {
                    inputBreaksProtocol = true
                }
                break
            }
            let frame = rest[..<terminator]
            rest = rest[(terminator + 1)...]
            guard frame.count <= configuration.maxMessageSize else {
                inputBreaksProtocol = true
                break
            }
            let call = (try? parser.parse(frame)).flatMap { try? VarlinkCall(parsing: $0) }
            compareReadings(of: frame, reader: reader, general: call)
            guard let call else {
                inputBreaksProtocol = true
                break
            }
            if !call.oneway { expected.append(call) }
        }
    }

    /// How many calls got their final reply.
    var finalReplies: Int { answered }

    /// Checks the next message the server wrote. Returns whether it is a reply with `continues`.
    @discardableResult
    mutating func check(_ message: ByteBuffer) -> Bool {
        let bytes = Array(message.readableBytesView)
        let text = String(decoding: bytes, as: UTF8.self)
        guard let terminator = bytes.firstIndex(of: 0), terminator == bytes.count - 1 else {
            violations.append("a write is not exactly one NUL-terminated message: \(text)")
            return false
        }
        let reply: VarlinkReply
        do {
            // Replies nest the input's values inside their own structure: allow more depth than calls get.
            reply = try VarlinkReply(parsing: JSONParser(maxDepth: 4096).parse(bytes.dropLast()))
        } catch {
            violations.append("a reply is not a well-formed reply (\(error)): \(text)")
            return false
        }
        guard answered < expected.count else {
            violations.append("a reply answers no call: \(text)")
            return reply.continues
        }
        let call = expected[answered]
        if reply.continues, !call.more {
            violations.append("a reply to \(call.method) without more has continues")
        }
        if let error = reply.error {
            checkError(error, of: call)
        } else {
            checkOutput(reply.parameters, of: call)
        }
        if !reply.continues { answered += 1 }
        return reply.continues
    }

    /// Checks that nothing is missing once the server has closed the connection.
    mutating func finish() {
        if !inputBreaksProtocol, answered < expected.count {
            violations.append(
                "\(expected.count - answered) of \(expected.count) calls got no final reply; the first unanswered is "
                    + "\(expected[answered].method)"
            )
        }
    }

    /// Holds the reader's reading of `frame` to the general reading's, `general` (`nil` when it refuses the message).
    private mutating func compareReadings(
        of frame: ArraySlice<UInt8>,
        reader: VarlinkCallReader,
        general: VarlinkCall?
    ) {
        guard let read = frame.withUnsafeBytes({ reader.read($0) }) else { return }
        callsComparedWithTheReader += 1
        let text = String(decoding: frame, as: UTF8.self)
        guard let general else {
            violations.append("the reader read a message the general reading refuses: \(text)")
            return
        }
        guard read == general else {
            violations.append("the reader read \(read.jsonValue), the general reading \(general.jsonValue): \(text)")
            return
        }
        guard let interface = service.interface(named: general.interfaceName),
            let method = interface.methods[general.memberName]
        else { return }
        var verdictOnTree: VarlinkError?
        do { try interface.validateInput(of: read, against: method) } catch { verdictOnTree = error }
        var verdict: VarlinkError?
        do { try interface.validateInput(general.parameters, of: method) } catch { verdict = error }
        if verdictOnTree != verdict {
            violations.append(
                "the parameters' check as json-c parsed them says \(verdictOnTree.map { "\($0)" } ?? "valid"), as a "
                    + "JSONObject \(verdict.map { "\($0)" } ?? "valid"): \(text)"
            )
        }
    }

    private mutating func checkError(_ name: String, of call: VarlinkCall) {
        guard let dot = name.lastIndex(of: ".") else {
            violations.append("\(call.method) was answered with the error \(name), which names no interface")
            return
        }
        let interfaceName = String(name[..<dot])
        let errorName = String(name[name.index(after: dot)...])
        guard let interface = service.interface(named: interfaceName), interface.errors[errorName] != nil else {
            violations.append("\(call.method) was answered with the error \(name), which no served interface declares")
            return
        }
    }

    private mutating func checkOutput(_ parameters: JSONObject, of call: VarlinkCall) {
        guard let interface = service.interface(named: call.interfaceName),
            let method = interface.methods[call.memberName]
        else {
            violations.append("\(call.method), which is not served, got a successful reply")
            return
        }
        if let path = interface.firstInvalidOutput(parameters, of: method) {
            violations.append(
                "the reply to \(call.method) does not match its output declaration at \(path): "
                    + "\(JSONValue.object(parameters))"
            )
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
