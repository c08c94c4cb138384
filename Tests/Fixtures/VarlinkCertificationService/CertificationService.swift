@preconcurrency import Glibc
import Logging
import NavHostVarlink

/// `varlink-certification-service --socket PATH`: serves `org.varlink.certification` for the Varlink
/// certification clients. Prints `READY` on standard output once the socket listens.
@main
struct CertificationService {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard let index = arguments.firstIndex(of: "--socket"), index + 1 < arguments.count else {
            fputs("usage: varlink-certification-service --socket PATH\n", stderr)
            exit(2)
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .info
            return handler
        }
        let logger = Logger(label: "varlink-certification-service")

        var service = VarlinkService(
            vendor: "NavHost",
            product: "varlink-certification-service",
            version: "1",
            url: "https://navhost.example/varlink"
        )
        service.add(try CertificationImplementation.make())
        let server = try await VarlinkServer.bind(
            unixSocketPath: arguments[index + 1],
            service: service,
            logger: logger
        )
        print("READY")
        fflush(stdout)
        try await server.run()
    }
}
