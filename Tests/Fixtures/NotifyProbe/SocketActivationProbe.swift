import Glibc
import NavHostSystemd

/// Takes the socket named `varlink` from systemd's variables, accepts one connection on it and writes one line
/// saying which descriptor it was and whether the `LISTEN_*` variables are gone.
enum SocketActivationProbe {
    static func run() -> Int32 {
        let descriptor: Int32
        do {
            guard let found = try SocketActivation.listeningUnixSocket(named: "varlink") else {
                Output.line("no socket named varlink")
                return 3
            }
            descriptor = found
        } catch {
            Output.line("\(error)")
            return 1
        }
        let connection = accept(descriptor, nil, nil)
        guard connection >= 0 else {
            Output.line("accept failed: errno \(errno)")
            return 1
        }
        let environmentCleared = getenv("LISTEN_FDS") == nil && getenv("LISTEN_FDNAMES") == nil
        let greeting = Array("varlink fd \(descriptor), environment cleared: \(environmentCleared)\n".utf8)
        _ = greeting.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
        close(connection)
        return 0
    }
}
