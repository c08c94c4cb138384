// swift-tools-version:6.0
//
// NavHostKit: the SDK that the daemon and every feature plugin share.
//
// It lives in a package of its own so that SwiftPM builds it as ONE shared library (`libNavHostKit.so`). Targets
// inside a single package are linked statically, which would give the host and each plugin a private copy of every
// SDK type: casts across the plugin boundary would then fail. Depending on this `.dynamic` product from the root
// package makes both sides load the same image at run time.
//
// Both modules are built with library evolution and emit their module interfaces (`.swiftinterface`): a plugin built
// against an older minor version of the SDK reads the newer SDK's types through their resilient accessors, never by
// an old layout (docs/sdk.md). The SDK depends on no Swift package, so no other package's layout is baked into
// plugins; its only dependency is json-c, behind an internal import.
import PackageDescription

let resilient: [SwiftSetting] = [
    .unsafeFlags(["-enable-library-evolution", "-emit-module-interface"])
]

let package = Package(
    name: "NavHostKit",
    products: [
        .library(name: "NavHostKit", type: .dynamic, targets: ["NavHostKit", "NavHostJSON"])
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
            dependencies: ["CJSONC"],
            swiftSettings: resilient
        ),
        .target(
            name: "NavHostKit",
            dependencies: ["NavHostJSON"],
            swiftSettings: resilient,
            // The name plugins record (NEEDED) and the dynamic linker looks for: the same across minor versions.
            linkerSettings: [.unsafeFlags(["-Xlinker", "-soname=libNavHostKit.so"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
