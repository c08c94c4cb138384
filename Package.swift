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
        .executable(name: "navctl", targets: ["navctl"]),
        .library(name: "NavHostClient", targets: ["NavHostClient"]),
        .library(name: "NavHostTesting", targets: ["NavHostTesting"]),
        .library(name: "NavHostVarlink", targets: ["NavHostVarlink"]),
        // MARK: - Plugins (each a shared library the daemon loads at run time)
        .library(name: "ProbePlugin", type: .dynamic, targets: ["ProbePlugin"]),
        .library(name: "HomeFeature", type: .dynamic, targets: ["HomeFeature", "HomeFeatureEntry"]),
        .library(
            name: "UserProfileFeature",
            type: .dynamic,
            targets: ["UserProfileFeature", "UserProfileFeatureEntry"]
        ),
        .library(name: "ProductsFeature", type: .dynamic, targets: ["ProductsFeature", "ProductsFeatureEntry"]),
        .library(name: "SettingsFeature", type: .dynamic, targets: ["SettingsFeature", "SettingsFeatureEntry"]),
    ],
    dependencies: [
        .package(path: "NavHostKit"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // MARK: - Targets

        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "NavHostCore",
            dependencies: [
                "COpenSSL",
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
        .target(
            name: "NavHostService",
            dependencies: [
                "NavHostCore",
                "NavHostVarlink",
                .product(name: "NavHostKit", package: "NavHostKit"),
            ],
            exclude: ["Interfaces/io.navhost.Navigation.varlink", "Interfaces/io.navhost.Plugins.varlink"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NavHostClient",
            dependencies: [
                "NavHostCore",
                "NavHostVarlink",
                .product(name: "NavHostKit", package: "NavHostKit"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "navctl",
            dependencies: [
                "NavHostClient",
                .product(name: "NavHostKit", package: "NavHostKit"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "navhostd",
            dependencies: [
                "NavHostCore",
                "NavHostService",
                "NavHostSystemd",
                "NavHostVarlink",
                .product(name: "NavHostKit", package: "NavHostKit"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: - Plugins
        //
        // Each example feature is laid out as the seeds teach (Presentation / Domain / Data) in `Plugins/<Name>/Sources`,
        // with its tests in `Plugins/<Name>/Tests`. Its C entry point lives in a target of its own, `Plugins/<Name>/Entry`:
        // every plugin exports the same symbol, `navhost_feature_entry`, and SwiftPM links all test targets and their
        // dependencies into ONE test binary, where two definitions of that symbol fail to link. The `.dynamic` product
        // joins the feature and its entry into `lib<Name>Feature.so`.

        .target(
            name: "HomeFeature",
            dependencies: [.product(name: "NavHostKit", package: "NavHostKit")],
            path: "Plugins/Home/Sources",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HomeFeatureEntry",
            dependencies: ["HomeFeature", .product(name: "NavHostKit", package: "NavHostKit")],
            path: "Plugins/Home/Entry",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HomeFeatureTests",
            dependencies: ["HomeFeature", .product(name: "NavHostKit", package: "NavHostKit")],
            path: "Plugins/Home/Tests",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "UserProfileFeature",
            dependencies: [.product(name: "NavHostKit", package: "NavHostKit")],
            path: "Plugins/UserProfile/Sources",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "UserProfileFeatureEntry",
            dependencies: ["UserProfileFeature", .product(name: "NavHostKit", package: "NavHostKit")],
            path: "Plugins/UserProfile/Entry",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "UserProfileFeatureTests",
            dependencies: ["UserProfileFeature", .product(name: "NavHostKit", package: "NavHostKit")],
            path: "Plugins/UserProfile/Tests",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ProductsFeature",
            dependencies: [.product(name: "NavHostKit", package: "NavHostKit")],
            path: "Plugins/Products/Sources",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ProductsFeatureEntry",
            dependencies: ["ProductsFeature", .product(name: "NavHostKit", package: "NavHostKit")],
            path: "Plugins/Products/Entry",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ProductsFeatureTests",
            dependencies: ["ProductsFeature", .product(name: "NavHostKit", package: "NavHostKit")],
            path: "Plugins/Products/Tests",
            swiftSettings: swiftSettings
        ),

        .target(
            name: "SettingsFeature",
            dependencies: [.product(name: "NavHostKit", package: "NavHostKit")],
            path: "Plugins/Settings/Sources",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SettingsFeatureEntry",
            dependencies: ["SettingsFeature", .product(name: "NavHostKit", package: "NavHostKit")],
            path: "Plugins/Settings/Entry",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SettingsFeatureTests",
            dependencies: ["SettingsFeature", .product(name: "NavHostKit", package: "NavHostKit")],
            path: "Plugins/Settings/Tests",
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
            name: "varlink-call-as",
            dependencies: [
                "NavHostVarlink",
                .product(name: "NavHostKit", package: "NavHostKit"),
            ],
            path: "Tests/Fixtures/VarlinkCallAs",
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

        .target(
            name: "NavHostTestSupport",
            dependencies: [
                "NavHostVarlink",
                .product(name: "NavHostKit", package: "NavHostKit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/Support",
            swiftSettings: swiftSettings
        ),
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
                "NavHostTestSupport",
                .product(name: "NavHostKit", package: "NavHostKit"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NavHostDaemonTests",
            dependencies: [
                "NavHostTestSupport",
                "NavHostVarlink",
                .product(name: "NavHostKit", package: "NavHostKit"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NavHostClientTests",
            dependencies: [
                "NavHostClient",
                "NavHostCore",
                "NavHostTestSupport",
                .product(name: "NavHostKit", package: "NavHostKit"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NavctlTests",
            dependencies: [
                "NavHostClient",
                "NavHostTestSupport",
                .product(name: "NavHostKit", package: "NavHostKit"),
            ],
            exclude: ["Snapshots"],
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
        .testTarget(
            name: "NavHostVarlinkTests",
            dependencies: [
                "NavHostVarlink",
                "NavHostTestSupport",
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
