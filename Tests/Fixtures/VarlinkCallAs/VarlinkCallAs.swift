// Test fixture: makes one Varlink call as another user, so tests can act as an unprivileged peer.
//
//   varlink-call-as UID GID SOCKET METHOD PARAMETERS-JSON [--repeat COUNT]
//   varlink-call-as UID GID SOCKET --hold COUNT
//
// With --repeat it makes the call COUNT times on one connection, and prints the last reply.
// With --hold it opens COUNT connections one after another, keeps each one the daemon answers (GetInfo), prints
// `held N refused M` and then holds them until it is killed.
//
// Started as root, it drops to UID/GID (no supplementary groups) before connecting, so the daemon's SO_PEERCRED
// sees that user. Prints the reply's parameters, or `error NAME PARAMETERS`, or `connect-failed REASON`.
import Glibc
import NavHostJSON
import NavHostVarlink

@main
struct VarlinkCallAs {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 6 || (arguments.count == 8 && arguments[6] == "--repeat"),
            let uid = UInt32(arguments[1]), let gid = UInt32(arguments[2])
        else {
            print("usage: varlink-call-as UID GID SOCKET METHOD PARAMETERS-JSON [--repeat COUNT]")
            exit(2)
        }
        let count = arguments.count == 8 ? max(Int(arguments[7]) ?? 1, 1) : 1
        guard setgroups(0, nil) == 0, setgid(gid) == 0, setuid(uid) == 0 else {
            print("cannot drop privileges: \(String(cString: strerror(errno)))")
            exit(2)
        }
        if arguments[4] == "--hold", let count = Int(arguments[5]) {
            await hold(count, at: arguments[3])
        }
        do {
            guard case .object(let parameters) = try JSONParser().parse(arguments[5]) else {
                print("PARAMETERS-JSON must be an object")
                exit(2)
            }
            let client: VarlinkClient
            do {
                client = try await VarlinkClient.connect(unixSocketPath: arguments[3])
            } catch {
                print("connect-failed \(error)")
                exit(1)
            }
            for _ in 1..<count { _ = try? await client.call(arguments[4], parameters: parameters) }
            let reply = try await client.call(arguments[4], parameters: parameters)
            print(try JSONValue.object(reply).serializedString())
        } catch let error as VarlinkError {
            print("error \(error.name) \((try? JSONValue.object(error.parameters).serializedString()) ?? "")")
        } catch {
            print("failed \(error)")
            exit(1)
        }
    }

    /// Opens `count` connections, keeps the ones that are served, says how many, and never returns.
    static func hold(_ count: Int, at socket: String) async -> Never {
        var held: [VarlinkClient] = []
        var refused = 0
        for _ in 0..<count {
            do {
                let client = try await VarlinkClient.connect(unixSocketPath: socket)
                _ = try await client.call("org.varlink.service.GetInfo", parameters: [:])
                held.append(client)
            } catch {
                refused += 1
            }
        }
        // Written straight to the descriptor: stdout is a pipe, and print's buffer would hold the line.
        let line = Array("held \(held.count) refused \(refused)\n".utf8)
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        while true { try? await Task.sleep(for: .seconds(3600)) }
    }
}
