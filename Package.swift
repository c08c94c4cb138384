// swift-tools-version:6.0
import PackageDescription

// NavHost: a headless navigation host for Linux.
//
// The SDK that plugins build against, NavHostKit, is a package of its own in `NavHostKit/`, built as one shared library.
// Everything here links against that one library, so the daemon and every plugin share its types.

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "NavHost",
    products: [
        .executable(name: "navhostd", targets: ["navhostd"]),
        // MARK: - Plugins (each a shared library the daemon loads at run time)
        .library(name: "ProbePlugin", type: .dynamic, targets: ["ProbePlugin"]),
    ],
    dependencies: [
        .package(path: "NavHostKit"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // MARK: - Targets

        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        .target(
            name: "NavHostCore",
            dependencies: [
                .product(name: "NavHostKit", package: "NavHostKit"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NavHostSystemd",
            dependencies: [
                "CSystemd",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "navhostd",
            dependencies: [
                "NavHostCore",
                .product(name: "NavHostKit", package: "NavHostKit"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: - Test fixtures

        .target(
            name: "ProbePlugin",
            dependencies: [.product(name: "NavHostKit", package: "NavHostKit")],
            path: "Tests/Fixtures/ProbePlugin",
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "NotifyProbe",
            dependencies: [
                "NavHostSystemd",
                .product(name: "NavHostKit", package: "NavHostKit"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/Fixtures/NotifyProbe",
            swiftSettings: swiftSettings
        ),

        // MARK: - Tests

        .testTarget(
            name: "NavHostJSONTests",
            dependencies: [.product(name: "NavHostKit", package: "NavHostKit")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NavHostCoreTests",
            dependencies: [
                "NavHostCore",
                .product(name: "NavHostKit", package: "NavHostKit"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NavHostSystemdTests",
            dependencies: [
                "NavHostSystemd",
                "CSystemd",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
