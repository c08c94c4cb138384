import Foundation
import Logging
package import NavHostJSON
import NavHostKit
import NavHostVarlink
import Synchronization

/// A stand-in for `navhostd` whose answers a test writes: it serves the real `io.navhost.Navigation` and
/// `io.navhost.Plugins` definitions over a real socket, checks each call's parameters against them as the daemon
/// does, records the call, and answers with what the test scripted for the method.
///
/// Replies are *not* checked against the definitions, so a test can send one that breaks the interface. Use the real
/// daemon (``DaemonProcess``) for behaviour; use this for exact replies, every error, and failures the real daemon
/// cannot be made to show on demand.
package final class ScriptedNavigationService: Sendable {
    /// How a method answers.
    package enum Answer: Sendable {
        /// One reply with these output parameters.
        case reply(JSONObject)
        /// An error reply: its fully qualified name and parameters.
        case error(String, JSONObject = [:])
        /// For a `more` call: these replies, each with `continues`, then `end`.
        case stream([JSONObject], end: StreamEnd)
    }

    /// How a scripted stream ends.
    package enum StreamEnd: Sendable {
        /// A final reply without parameters.
        case finalReply
        /// An error reply.
        case error(String, JSONObject = [:])
        /// Never: the stream stays open until the client leaves or the service stops.
        case never
    }

    /// One call the service received.
    package struct Call: Sendable, Hashable {
        /// The fully qualified method name.
        package var method: String
        /// The input parameters, as sent.
        package var parameters: JSONObject

        package init(method: String, parameters: JSONObject) {
            self.method = method
            self.parameters = parameters
        }
    }

    /// The socket clients connect to.
    package let socketPath: String

    private let answers: Mutex<[String: Answer]>
    private let received = Mutex<[Call]>([])
    private let server: Mutex<VarlinkServer?> = Mutex(nil)
    private let serving: Mutex<Task<Void, any Error>?> = Mutex(nil)

    private init(socketPath: String, answers: [String: Answer]) {
        self.socketPath = socketPath
        self.answers = Mutex(answers)
    }

    /// Starts serving.
    ///
    /// - Parameter answers: The answer of each method, by fully qualified name
    ///   (`io.navhost.Navigation.Stack`). A method without one answers `io.navhost.test.NotScripted`.
    package static func start(_ answers: [String: Answer] = [:]) async throws -> ScriptedNavigationService {
        let service = ScriptedNavigationService(socketPath: TestPaths.socketPath(), answers: answers)
        var varlink = VarlinkService(vendor: "NavHost", product: "scripted", version: "0", url: "https://navhost.test")
        for file in ["io.navhost.Navigation.varlink", "io.navhost.Plugins.varlink"] {
            varlink.add(try service.implementation(definitionFile: file))
        }
        let server = try await VarlinkServer.bind(
            unixSocketPath: service.socketPath,
            socketMode: 0o666,
            service: varlink,
            logger: Logger(label: "scripted-navigation-service") { _ in SwiftLogNoOpLogHandler() }
        )
        service.server.withLock { $0 = server }
        service.serving.withLock { $0 = Task { try await server.run() } }
        return service
    }

    /// Changes how `method` answers from now on.
    package func answer(_ method: String, with answer: Answer) {
        answers.withLock { $0[method] = answer }
    }

    /// Every call received so far, oldest first.
    package var calls: [Call] { received.withLock { $0 } }

    /// Stops serving, gracefully as `navhostd` does on SIGTERM, and removes the socket file: calls received are
    /// answered, and a running stream ends with `io.navhost.varlink.ServiceShuttingDown`.
    ///
    /// There is no abrupt stop: cancelling a `VarlinkServer`'s `run()` at the wrong moment either traps inside NIO
    /// ("Deinited NIOAsyncWriter without calling finish()") or never returns. ``DroppingVarlinkServer`` plays a
    /// daemon that dies mid-call.
    package func stop() async {
        server.withLock { $0 }?.shutdownGracefully()
        _ = await serving.withLock { $0 }?.result
    }

    deinit {
        server.withLock { $0 }?.shutdownGracefully()
    }

    // MARK: - Handlers

    private func implementation(definitionFile: String) throws -> VarlinkInterfaceImplementation {
        let path = "\(TestPaths.packageRoot)/Sources/NavHostWire/Interfaces/\(definitionFile)"
        var implementation = try VarlinkInterfaceImplementation(
            description: try String(contentsOfFile: path, encoding: .utf8)
        )
        let interface = implementation.interface.name
        for method in implementation.interface.methods.keys {
            let name = "\(interface).\(method)"
            implementation.handleStreaming(method) { [self] request, replies in
                received.withLock { $0.append(Call(method: name, parameters: request.parameters)) }
                let answer = answers.withLock { $0[name] } ?? .error("io.navhost.test.NotScripted", [:])
                return try await Self.perform(answer, replies: replies)
            }
        }
        return implementation
    }

    private static func perform(_ answer: Answer, replies: VarlinkReplyWriter) async throws -> JSONObject {
        switch answer {
        case .reply(let parameters):
            return parameters
        case .error(let name, let parameters):
            throw VarlinkError(name: name, parameters: parameters)
        case .stream(let updates, let end):
            for update in updates { try await replies.send(update) }
            switch end {
            case .finalReply:
                return [:]
            case .error(let name, let parameters):
                throw VarlinkError(name: name, parameters: parameters)
            case .never:
                while true { try await Task.sleep(for: .seconds(3600)) }
            }
        }
    }
}
