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
        .library(name: "NavHostTesting", targets: ["NavHostTesting"]),
        .library(name: "NavHostVarlink", targets: ["NavHostVarlink"]),
        // MARK: - Plugins (each a shared library the daemon loads at run time)
        .library(name: "ProbePlugin", type: .dynamic, targets: ["ProbePlugin"]),
    ],
    dependencies: [
        .package(path: "NavHostKit"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
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
            name: "NavHostTesting",
            dependencies: [
                "NavHostCore",
                .product(name: "NavHostKit", package: "NavHostKit"),
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NavHostVarlink",
            dependencies: [
                .product(name: "NavHostKit", package: "NavHostKit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "OrderedCollections", package: "swift-collections"),
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
            name: "varlink-certification-service",
            dependencies: [
                "NavHostVarlink",
                .product(name: "NavHostKit", package: "NavHostKit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            path: "Tests/Fixtures/VarlinkCertificationService",
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
                "NavHostTesting",
                .product(name: "NavHostKit", package: "NavHostKit"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NavHostVarlinkTests",
            dependencies: [
                "NavHostVarlink",
                .product(name: "NavHostKit", package: "NavHostKit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOTestUtils", package: "swift-nio"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
