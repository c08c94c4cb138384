import NavHostCore
import NavHostKit

@main
struct NavHostDaemon {
    static func main() async {
        print("navhostd: NavHostKit \(NavHostKitVersion.current)")
    }
}
