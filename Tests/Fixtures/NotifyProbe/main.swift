// A stand-in daemon for the NavHostSystemd tests: it uses the module the way navhostd does, in a process of its own,
// so tests can give it NOTIFY_SOCKET, WATCHDOG_USEC and LISTEN_FDS without touching their own environment.
//
//   NotifyProbe lifecycle                   READY, STATUS; SIGHUP: reload; SIGTERM: STOPPING, exit 0
//   NotifyProbe watchdog [--wedge-after N]  pings through Watchdog; after N pings, wedges its MainActor
//   NotifyProbe watchdog-timeout            prints WATCHDOG_USEC as Watchdog reads it, or "off"
//   NotifyProbe socket-activation           accepts one connection on the fd named "varlink" and greets it
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
default:
    Output.line("usage: NotifyProbe lifecycle | watchdog [--wedge-after N] | watchdog-timeout | socket-activation")
    exit(64)
}
