// Test fixture: makes one Varlink call as another user, so tests can act as an unprivileged peer.
//
//   varlink-call-as UID GID SOCKET METHOD PARAMETERS-JSON
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
        guard arguments.count == 6, let uid = UInt32(arguments[1]), let gid = UInt32(arguments[2]) else {
            print("usage: varlink-call-as UID GID SOCKET METHOD PARAMETERS-JSON")
            exit(2)
        }
        guard setgroups(0, nil) == 0, setgid(gid) == 0, setuid(uid) == 0 else {
            print("cannot drop privileges: \(String(cString: strerror(errno)))")
            exit(2)
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
            let reply = try await client.call(arguments[4], parameters: parameters)
            print(try JSONValue.object(reply).serializedString())
        } catch let error as VarlinkError {
            print("error \(error.name) \((try? JSONValue.object(error.parameters).serializedString()) ?? "")")
        } catch {
            print("failed \(error)")
            exit(1)
        }
    }
}
