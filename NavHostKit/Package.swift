// swift-tools-version:6.0
//
// NavHostKit: the SDK that the daemon and every feature plugin share.
//
// It lives in a package of its own so that SwiftPM builds it as ONE shared library
// (`libNavHostKit.so`). Targets inside a single package are linked statically, which
// would give the host and each plugin a private copy of every SDK type: casts across
// the plugin boundary would then fail. Depending on this `.dynamic` product from the
// root package makes both sides load the same image at run time.
import PackageDescription

let package = Package(
    name: "NavHostKit",
    products: [
        .library(name: "NavHostKit", type: .dynamic, targets: ["NavHostKit", "NavHostJSON"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        // MARK: - Targets

        .systemLibrary(
            name: "CJSONC",
            pkgConfig: "json-c",
            providers: [.apt(["libjson-c-dev"])]
        ),
        .target(
            name: "NavHostJSON",
            dependencies: [
                "CJSONC",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .target(
            name: "NavHostKit",
            dependencies: [
                "NavHostJSON",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
