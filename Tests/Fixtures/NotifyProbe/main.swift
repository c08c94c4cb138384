// A stand-in daemon for the NavHostSystemd tests: it uses the module the way navhostd does, in a process of its own,
// so tests can give it NOTIFY_SOCKET, WATCHDOG_USEC and LISTEN_FDS without touching their own environment.
//
//   NotifyProbe lifecycle                   READY, STATUS; SIGHUP: reload; SIGTERM: STOPPING, exit 0
//   NotifyProbe watchdog [--wedge-after N]  pings through Watchdog; after N pings, wedges its MainActor
//   NotifyProbe watchdog-timeout            prints WATCHDOG_USEC as Watchdog reads it, or "off"
//   NotifyProbe socket-activation           accepts one connection on the fd named "varlink" and greets it
//   NotifyProbe serve --socket P --plugins D --state-dir S   navhostd's stand-in under a real systemd (ServeProbe)
//   NotifyProbe connect PATH                prints the line a serving probe answers
//   NotifyProbe journal-check BYTES         logs to the real journald socket (scripts/journald-check.sh)
import Dispatch
import Glibc
import NavHostSystemd

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "lifecycle":
    Lifecycle.start()
    dispatchMain()
case "watchdog":
    let wedgeAfter = arguments.firstIndex(of: "--wedge-after").flatMap { Int(arguments[$0 + 1]) }
    WatchdogProbe.start(wedgeAfter: wedgeAfter)
    dispatchMain()
case "watchdog-timeout":
    let timeout = try Watchdog.configuredTimeout()
    let microseconds = timeout.map { $0.components.seconds * 1_000_000 + $0.components.attoseconds / 1_000_000_000_000 }
    Output.line(microseconds.map { "\($0)" } ?? "off")
case "socket-activation":
    exit(SocketActivationProbe.run())
case "serve":
    ServeProbe.start(arguments: arguments)
    dispatchMain()
case "journal-check" where arguments.count == 2:
    exit(JournalProbe.run(largeMessageBytes: Int(arguments[1]) ?? 8 << 20))
case "connect" where arguments.count == 2:
    exit(Client.printReply(from: arguments[1]))
default:
    Output.line(
        "usage: NotifyProbe lifecycle | watchdog [--wedge-after N] | watchdog-timeout | socket-activation | serve | connect"
    )
    exit(64)
}
