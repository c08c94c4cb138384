// swift-tools-version:6.1
import Foundation
import PackageDescription

// NavHost: a headless navigation host for Linux.
//
// The SDK that plugins build against, NavHostKit, is a package of its own in `NavHostKit/`, built as one shared library.
// Everything here links against that one library, so the daemon and every plugin share its types.
//
// The SDK depends on no Swift package (docs/sdk.md): its public API holds only its own types and the standard
// library's, so no other package's layout is baked into a plugin.

// MARK: - Dependencies by name
//
// The products the targets below depend on, named once: `.product(name:package:)` spelled out at every use made this
// file a wall of repetition rather than a table of modules.

let sdk: Target.Dependency = .product(name: "NavHostKit", package: "NavHostKit")
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let nioCore: Target.Dependency = .product(name: "NIOCore", package: "swift-nio")
let nioPosix: Target.Dependency = .product(name: "NIOPosix", package: "swift-nio")
let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// The daemon is linked by lld with its relative relocations packed (DT_RELR, glibc 2.36): the table the loader reads
// at every start shrinks from 431 KiB to 111 KiB, and lld keeps read-only data and unwind tables out of the code's
// mapping. Idle RSS falls by 0.2-0.4 MB (alternating navhost-bench memory runs); gold, the default, knows neither.
let daemonLinkerSettings: [LinkerSetting] = [
    .unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"])
]

// MARK: - Plugin discovery
//
// Every folder `Plugins/<Name>/` that holds a `plugin.json` is a feature plugin, laid out as the seeds teach
// (Presentation / Domain / Data) in `Sources/`, with its C entry point in `Entry/` and its tests in `Tests/`. Each one
// becomes three targets, `<Name>Feature`, `<Name>FeatureEntry` and `<Name>FeatureTests`, and one `.dynamic` product,
// `lib<Name>Feature.so`. `make new-feature NAME=Orders` adds a plugin without editing this file.
//
// The entry point lives in a target of its own because every plugin exports the same symbol, `navhost_feature_entry`,
// and SwiftPM links all test targets and their dependencies into ONE test binary, where two definitions of that
// symbol fail to link. The `.dynamic` product joins the feature and its entry into the plugin's `.so`.

let pluginNames: [String] = {
    let plugins = URL(fileURLWithPath: Context.packageDirectory).appendingPathComponent("Plugins")
    let folders = (try? FileManager.default.contentsOfDirectory(atPath: plugins.path)) ?? []
    return folders.filter { folder in
        FileManager.default.fileExists(
            atPath: plugins.appendingPathComponent(folder).appendingPathComponent("plugin.json").path
        )
    }.sorted()
}()

func pluginTargets(_ name: String) -> [Target] {
    [
        .target(
            name: "\(name)Feature",
            dependencies: [sdk],
            path: "Plugins/\(name)/Sources",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "\(name)FeatureEntry",
            dependencies: [.target(name: "\(name)Feature"), sdk],
            path: "Plugins/\(name)/Entry",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "\(name)FeatureTests",
            dependencies: [.target(name: "\(name)Feature"), "NavHostTesting", sdk],
            path: "Plugins/\(name)/Tests",
            swiftSettings: swiftSettings
        ),
    ]
}

func pluginProduct(_ name: String) -> Product {
    .library(name: "\(name)Feature", type: .dynamic, targets: ["\(name)Feature", "\(name)FeatureEntry"])
}

// MARK: - Test fixtures
//
// Plugins built only for tests, each a `.dynamic` library over NavHostKit. Those laid out like the example plugins
// (plugin.json beside Sources/) are staged by the daemon tests with navhost-plugin-tool.

let fixturePlugins: [(name: String, path: String)] = [
    // The smallest plugin: proves the daemon and a plugin share one NavHostKit.
    ("ProbePlugin", "Tests/Fixtures/ProbePlugin"),
    // A composition root that throws: quarantined as `initialisationFailed`.
    ("FailingPlugin", "Tests/Fixtures/FailingPlugin"),
    // A feature built without its entry target: quarantined as `missingEntrySymbol`.
    ("EntrylessPlugin", "Tests/Fixtures/EntrylessPlugin"),
    // Offers `products.list`, which Products already offers: quarantined as `routeConflict`.
    ("ConflictingPlugin", "Tests/Fixtures/ConflictingPlugin"),
    // A use case that never returns, for the intent time limit (docs/robustness.md).
    ("StallFeature", "Tests/Fixtures/StallPlugin/Sources"),
    // Code that blocks, spins or traps on the main thread, for the fault guard (docs/robustness.md).
    ("FaultyFeature", "Tests/Fixtures/FaultPlugin/Sources"),
    // Results that depend on the host's random numbers and clock, for the flight recorder's replay
    // (docs/recording.md).
    ("DiceFeature", "Tests/Fixtures/DicePlugin/Sources"),
    // Screens that tick, load, follow, write items kept in memory, pulse and hold the main actor on real time, for the
    // replay's settle (docs/recording.md), and one that sets its restorable note late, for a replay's hand-over.
    ("PaceFeature", "Tests/Fixtures/PacePlugin/Sources"),
    // Intents that call each of the Router's operations, for the durability of a Send that moves the stack
    // (docs/durability.md).
    ("HopsFeature", "Tests/Fixtures/HopsPlugin/Sources"),
]

func fixturePluginTarget(_ fixture: (name: String, path: String)) -> Target {
    .target(name: fixture.name, dependencies: [sdk], path: fixture.path, swiftSettings: swiftSettings)
}

func fixturePluginProduct(_ fixture: (name: String, path: String)) -> Product {
    .library(name: fixture.name, type: .dynamic, targets: [fixture.name])
}

// MARK: - Package

let package = Package(
    name: "NavHost",
    products: [
        .executable(name: "navhostd", targets: ["navhostd"]),
        .executable(name: "navctl", targets: ["navctl"]),
        .executable(name: "navhost-plugin-tool", targets: ["navhost-plugin-tool"]),
        .executable(name: "navhost-bench", targets: ["navhost-bench"]),
        .library(name: "NavHostClient", targets: ["NavHostClient"]),
        // The feature test kit, installed with the SDK for plugins built outside this repository (docs/sdk.md).
        .library(name: "NavHostTesting", type: .dynamic, targets: ["NavHostTesting"]),
        .library(name: "NavHostVarlink", targets: ["NavHostVarlink"]),
        // The libFuzzer target over framing, JSON and dispatch: `make fuzz`, docs/fuzzing.md.
        .executable(name: "navhost-fuzz", targets: ["navhost-fuzz"]),
    ] + pluginNames.map(pluginProduct) + fixturePlugins.map(fixturePluginProduct),
    dependencies: [
        .package(path: "NavHostKit"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        // The inspector page's HTTP and websocket server (navctl inspect); navhostd links neither.
        // No default traits: FullFoundation would link full Foundation and its 38 MiB ICU into navctl.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
    ],
    targets: [
        // MARK: - Targets

        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // libyaml, for navhostd's configuration file: in-process and without Foundation (Yams would add libFoundation
        // and ICU, 6.4 MB of resident memory, to the daemon; docs/configuration.md).
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        // glibc's malloc.h: navhostd gives the heap it no longer needs back to the system once it is ready.
        .systemLibrary(name: "CMalloc"),
        // SHA-256 of plugin libraries and session files: libgcrypt, which libsystemd maps into the daemon anyway.
        .systemLibrary(
            name: "CGcrypt",
            pkgConfig: "libgcrypt",
            providers: [.apt(["libgcrypt20-dev"])]
        ),
        // The signal handlers that name the plugin which crashed or stalled the daemon (PluginFaultGuard): C, because
        // a signal handler must not allocate or take locks.
        .target(name: "CFaultGuard"),
        // The main thread's loop over the main dispatch queue: navhostd's main actor runs on the main thread.
        .target(name: "CMainQueue"),
        // The wire model: the types of io.navhost.Navigation and io.navhost.Plugins (parameters, replies, errors,
        // snapshots, events, recordings) and the interface definitions, shared by the daemon and the client.
        .target(
            name: "NavHostWire",
            dependencies: [sdk],
            exclude: ["Interfaces/io.navhost.Navigation.varlink", "Interfaces/io.navhost.Plugins.varlink"],
            swiftSettings: swiftSettings
        ),
        // Storage: the one atomic-write routine, checksums, the files the daemon keeps in its state folder, and the gate
        // at which the changes that write them take turns.
        .target(
            name: "NavHostStorage",
            dependencies: [
                "CGcrypt",
                "NavHostWire",
                sdk,
                logging,
            ],
            swiftSettings: swiftSettings
        ),
        // The navigation engine: sessions, their stacks, screens, revisions, watchers, the flight recorder.
        .target(
            name: "NavHostCore",
            dependencies: [
                "NavHostStorage",
                "NavHostWire",
                sdk,
                logging,
            ],
            swiftSettings: swiftSettings
        ),
        // The plugin host: manifests, the ELF check, dlopen, the registry, the folder monitor, the fault guard, and
        // PluginControl, the one way to change the plugins of a running daemon.
        .target(
            name: "NavHostPluginHost",
            dependencies: [
                "CFaultGuard",
                "NavHostCore",
                "NavHostSpelling",
                "NavHostStorage",
                "NavHostWire",
                sdk,
                logging,
            ],
            swiftSettings: swiftSettings
        ),
        // Built with library evolution, like the SDK, and installed with it: its public API holds only NavHostKit's
        // types and its own, while the navigation core it runs features on stays inside its library.
        .target(
            name: "NavHostTesting",
            dependencies: [
                "NavHostCore",
                "NavHostWire",
                sdk,
                logging,
            ],
            swiftSettings: swiftSettings + [.unsafeFlags(["-enable-library-evolution", "-emit-module-interface"])]
        ),
        .target(
            name: "NavHostVarlink",
            dependencies: [
                sdk,
                logging,
                nioCore,
                nioPosix,
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NavHostSystemd",
            dependencies: [
                "CSystemd",
                "NavHostSocketPath",
                logging,
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NavHostService",
            dependencies: [
                "NavHostCore",
                "NavHostPluginHost",
                "NavHostStorage",
                "NavHostVarlink",
                "NavHostWire",
                sdk,
                logging,
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NavHostClient",
            dependencies: [
                "NavHostSocketPath",
                "NavHostVarlink",
                "NavHostWire",
                sdk,
                nioCore,
            ],
            swiftSettings: swiftSettings
        ),
        // `navctl inspect`: a web page on loopback that follows the daemon through NavHostClient's watches.
        .target(
            name: "NavHostInspector",
            dependencies: [
                "NavHostClient",
                sdk,
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                logging,
                nioCore,
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "navctl",
            dependencies: [
                "NavHostCommandLine",
                "NavHostClient",
                "NavHostInspector",
                "NavHostSocketPath",
                "NavHostSpelling",
                "NavHostStorage",
                "NavHostWire",
                sdk,
                argumentParser,
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "navhostd",
            dependencies: [
                "CMainQueue",
                "CMalloc",
                "CYAML",
                "NavHostCommandLine",
                "NavHostCore",
                "NavHostPluginHost",
                "NavHostService",
                "NavHostSocketPath",
                "NavHostSpelling",
                "NavHostStorage",
                "NavHostSystemd",
                "NavHostVarlink",
                "NavHostWire",
                sdk,
                argumentParser,
                nioCore,
                nioPosix,
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings,
            linkerSettings: daemonLinkerSettings
        ),
        // What the command lines add to ArgumentParser: a mistyped command, and its likely fix (navctl,
        // navhost-plugin-tool); a time limit, as navhostd and navctl both read it.
        .target(
            name: "NavHostCommandLine",
            dependencies: [
                "NavHostSpelling",
                argumentParser,
            ],
            swiftSettings: swiftSettings
        ),
        // The name a mistyped one was probably meant to be (`Spelling`), for the command lines' commands, navctl's
        // routes, intents, plugins and sessions, the plugin host's manifest fields and navhostd.conf's keys: a module
        // of its own, since the plugin host does not depend on the command lines' ArgumentParser, nor should.
        .target(
            name: "NavHostSpelling",
            swiftSettings: swiftSettings
        ),
        // How long a Unix socket's path may be, computed once for the command lines that check a path they are
        // given (navhostd, navctl), the daemon's systemd sockets and the client's error: a module of its own, since
        // neither the systemd module nor the client depends on the command lines' ArgumentParser, nor should.
        .target(
            name: "NavHostSocketPath",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NavHostPluginTools",
            dependencies: [
                "NavHostCore",
                "NavHostPluginHost",
                "NavHostStorage",
                sdk,
                logging,
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "navhost-plugin-tool",
            dependencies: [
                "NavHostCommandLine",
                "NavHostCore",
                "NavHostPluginHost",
                "NavHostPluginTools",
                "NavHostSocketPath",
                "NavHostStorage",
                sdk,
                logging,
                argumentParser,
            ],
            swiftSettings: swiftSettings
        ),
    ] + fixturePlugins.map(fixturePluginTarget) + [
        // MARK: - Test fixtures beside the plugins
        .executableTarget(
            name: "NotifyProbe",
            dependencies: [
                "NavHostSystemd",
                sdk,
                logging,
            ],
            path: "Tests/Fixtures/NotifyProbe",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "varlink-call-as",
            dependencies: [
                "NavHostVarlink",
                sdk,
            ],
            path: "Tests/Fixtures/VarlinkCallAs",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "varlink-certification-service",
            dependencies: [
                "NavHostVarlink",
                sdk,
                logging,
            ],
            path: "Tests/Fixtures/VarlinkCertificationService",
            swiftSettings: swiftSettings
        ),

        .target(
            name: "FixtureFeatures",
            dependencies: [sdk],
            path: "Tests/Fixtures/FixtureFeatures",
            swiftSettings: swiftSettings
        ),

        // MARK: - Fuzzing
        //
        // `navhost-fuzz` holds only the libFuzzer entry point (libFuzzer brings `main`); `NavHostFuzzing` drives the
        // daemon's Varlink front door in-process, for the fuzzer and for the corpus replay in `NavHostFuzzTests`.

        .target(
            name: "NavHostFuzzing",
            dependencies: [
                "FixtureFeatures",
                "NavHostCore",
                "NavHostPluginHost",
                "NavHostService",
                "IntegrationHarness",
                "NavHostTesting",
                "NavHostVarlink",
                "NavHostWire",
                sdk,
                logging,
                nioCore,
            ],
            path: "Tests/Fuzz/Harness",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "navhost-fuzz",
            dependencies: ["NavHostFuzzing"],
            path: "Tests/Fuzz/Target",
            swiftSettings: swiftSettings
        ),

        // MARK: - Benchmarks
        //
        // `navhost-bench` measures the real daemon against the C floor (`../shared/bench/floor.c`); see BENCHMARKS.md.
        // Its client is a bare socket that checks each reply with json-c, as the floor's client does: it reaches json-c
        // (and epoll) through a module of its own and imports nothing of NavHost.

        .systemLibrary(
            name: "CNavHostBench",
            path: "Benchmarks/CNavHostBench",
            pkgConfig: "json-c",
            providers: [.apt(["libjson-c-dev"])]
        ),
        .executableTarget(
            name: "navhost-bench",
            dependencies: [
                "CNavHostBench",
                argumentParser,
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            path: "Benchmarks/NavHostBench",
            swiftSettings: swiftSettings
        ),

        // MARK: - Tests

        .target(
            name: "IntegrationHarness",
            dependencies: [
                "NavHostVarlink",
                sdk,
                logging,
                nioCore,
                .product(name: "NIOEmbedded", package: "swift-nio"),
                nioPosix,
            ],
            path: "Tests/IntegrationHarness",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NavHostFuzzTests",
            dependencies: [
                "NavHostFuzzing",
                "IntegrationHarness",
                "NavHostVarlink",
                sdk,
            ],
            swiftSettings: swiftSettings
        ),
        // The wire types against the interface definitions, so the two cannot drift.
        .testTarget(
            name: "NavHostWireTests",
            dependencies: [
                "NavHostVarlink",
                "NavHostWire",
                sdk,
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NavHostJSONTests",
            dependencies: [sdk],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NavHostCoreTests",
            dependencies: [
                "NavHostCore",
                "NavHostPluginHost",
                "NavHostStorage",
                "IntegrationHarness",
                "NavHostTesting",
                "NavHostWire",
                sdk,
                logging,
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NavHostPluginToolsTests",
            dependencies: [
                "NavHostCore",
                "NavHostPluginHost",
                "NavHostPluginTools",
                "NavHostStorage",
                "IntegrationHarness",
                sdk,
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NavHostServiceTests",
            dependencies: ["NavHostService", "NavHostVarlink", "NavHostWire", sdk],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NavHostVarlinkTests",
            dependencies: [
                "NavHostVarlink",
                "IntegrationHarness",
                sdk,
                logging,
                .product(name: "InMemoryLogging", package: "swift-log"),
                nioCore,
                nioPosix,
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOTestUtils", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NavHostDaemonTests",
            dependencies: [
                "IntegrationHarness",
                "NavHostVarlink",
                sdk,
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NavHostClientTests",
            dependencies: [
                "NavHostClient",
                "IntegrationHarness",
                "NavHostWire",
                sdk,
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NavctlTests",
            dependencies: [
                "NavHostClient",
                "NavHostCommandLine",
                "NavHostSpelling",
                "IntegrationHarness",
                sdk,
            ],
            exclude: ["Snapshots"],
            swiftSettings: swiftSettings
        ),
        // The inspector's parts alone, and the page in headless Chromium against the real daemon and navctl.
        .testTarget(
            name: "NavHostInspectorTests",
            dependencies: [
                "NavHostInspector",
                "NavHostClient",
                "IntegrationHarness",
                sdk,
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NavHostSystemdTests",
            dependencies: [
                "NavHostSystemd",
                "IntegrationHarness",
                "CSystemd",
                logging,
            ],
            swiftSettings: swiftSettings
        ),
    ] + pluginNames.flatMap(pluginTargets),
    swiftLanguageModes: [.v6]
)

// MARK: - The package for plugin work alone
//
// With `NAVHOST_PACKAGE=plugins` in the environment, the package holds only what a feature plugin and
// navhost-plugin-tool need: the SDK, the test kit, the engine and plugin host the tool checks plugins with, the
// plugins and their tests. The daemon, the client, navctl, the inspector (Hummingbird), the benchmark and the rest of
// the tests are left out, and so are the packages only they use. scripts/test-scaffold.sh builds its copy of the
// package this way: a third of the build, for the same plugin, built and tested by the same rules.

if Context.environment["NAVHOST_PACKAGE"] == "plugins" {
    let pluginWork: Set<String> = [
        "CFaultGuard", "CGcrypt", "NavHostWire", "NavHostStorage", "NavHostCore", "NavHostPluginHost",
        "NavHostTesting", "NavHostPluginTools", "NavHostCommandLine", "NavHostSpelling", "NavHostSocketPath",
        "navhost-plugin-tool",
    ]
    let plugins = Set(pluginNames.flatMap(pluginTargets).map(\.name))
    package.targets.removeAll { !pluginWork.contains($0.name) && !plugins.contains($0.name) }
    package.products.removeAll { product in
        !(["navhost-plugin-tool", "NavHostTesting"] + pluginNames.map { "\($0)Feature" }).contains(product.name)
    }
    let usedPackages = ["NavHostKit", "swift-log", "swift-argument-parser"]
    package.dependencies.removeAll { dependency in
        !usedPackages.contains { "\(dependency.kind)".contains($0) }
    }
}
