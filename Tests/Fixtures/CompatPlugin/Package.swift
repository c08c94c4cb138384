// swift-tools-version:6.0
import Foundation
import PackageDescription

// A fixture plugin for the compatibility promise (docs/sdk.md): scripts/test-sdk-compat.sh compiles it against the
// SDK as it was at the previous release, from that SDK's .swiftinterface files alone, and loads it into the current
// daemon. It is a package of its own, outside the NavHost package, like any plugin built in another repository.
let sdk = ProcessInfo.processInfo.environment["NAVHOST_SDK"] ?? "/usr/lib/navhost"

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .unsafeFlags(["-I", "\(sdk)/swift"]),
]
let linkerSettings: [LinkerSetting] = [.unsafeFlags(["-L", sdk]), .linkedLibrary("NavHostKit")]

let package = Package(
    name: "Compat",
    products: [
        .library(name: "CompatFeature", type: .dynamic, targets: ["CompatFeature", "CompatFeatureEntry"])
    ],
    targets: [
        .target(
            name: "CompatFeature",
            path: "Sources",
            swiftSettings: swiftSettings,
            linkerSettings: linkerSettings
        ),
        .target(
            name: "CompatFeatureEntry",
            dependencies: ["CompatFeature"],
            path: "Entry",
            swiftSettings: swiftSettings,
            linkerSettings: linkerSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
