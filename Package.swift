// swift-tools-version: 6.1

import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// The products' code: a `nonisolated` async function runs where its caller runs (SE-0461) instead of hopping to
/// the global executor and back, so a durable `Set` makes 20 task switches instead of 38 on the event loop that
/// serves it (docs/performance.md). The test targets keep the default: the Swift Testing macros of this toolchain
/// do not compile with it.
let served = strict + [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]

let package = Package(
    name: "viper-settings",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "viper-settingsd", targets: ["viper-settingsd"]),
        .executable(name: "settingsctl", targets: ["settingsctl"]),
        .executable(name: "settingsctl-full", targets: ["settingsctl-full"]),
        .executable(name: "viper-settings-apply", targets: ["viper-settings-apply"]),
        .executable(name: "settings-bench", targets: ["settings-bench"]),
        .library(name: "ViperSettings", targets: ["ViperSettings"]),
        // For the libFuzzer targets in Fuzz/ (a package of its own that depends on this one).
        .library(name: "SettingsAPI", targets: ["SettingsAPI"]),
        .library(name: "ViperIPC", targets: ["ViperIPC"]),
        .library(name: "ViperStorage", targets: ["ViperStorage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/swift-extras/swift-extras-base64", from: "1.2.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    ],
    targets: [
        // The few calls into the C library every part needs: errno text and the wall clock.
        .target(name: "CHeapMemory"),
        .target(name: "ViperPOSIX", dependencies: ["CHeapMemory"], swiftSettings: served),
        // The View's contract: JSON values, ViewModels and error codes shared by the daemon and settingsctl.
        // No Foundation, so that settingsctl starts fast.
        .target(
            name: "SettingsAPI",
            resources: [.embedInCode("io.viper.settings.varlink"), .embedInCode("io.viper.settings.Apply.varlink")],
            swiftSettings: served
        ),
        // Entities, schemas and the VIPER Settings module (Interactor, Presenter, DataManager, Router, Builder).
        .target(
            name: "ViperSettings",
            dependencies: [
                "SettingsAPI",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: served
        ),
        // Durable storage: the JSON file Repository with its journal and group commit.
        .target(
            name: "ViperStorage",
            dependencies: [
                "ViperPOSIX",
                "ViperSettings",
                "SettingsAPI",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: served
        ),
        // Varlink over a Unix socket (SwiftNIO) and the io.viper.settings binding to the Router.
        .target(
            name: "ViperIPC",
            dependencies: [
                "ViperPOSIX",
                "SettingsAPI",
                "ViperSettings",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: served
        ),
        // Remote sync: an HTTP(S) document or an etcd cluster (its JSON gateway), behind RemoteSource.
        .target(
            name: "ViperSync",
            dependencies: [
                "ViperPOSIX",
                "ViperSettings",
                "SettingsAPI",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                // The errors of the client's lower layers (DNS and connecting, HTTP parsing), told in words.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // The CA file's certificates, parsed by the daemon itself (AsyncHTTPClient's TLS is NIOSSL's).
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
            ],
            swiftSettings: served
        ),
        // libsystemd (sd_notify, sd_listen_fds, sd_journal_sendv) through pkg-config.
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // systemd glue: readiness and watchdog notifications, socket activation, the journald LogHandler.
        .target(
            name: "ViperSystemd",
            dependencies: [
                "CSystemd",
                "SettingsAPI",
                "ViperPOSIX",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: served
        ),
        // The command line of the long-running programs (viper-settingsd, viper-settings-apply): --help laid out for
        // the terminal, usage errors as exit status 2.
        .target(
            name: "ViperCommandLine",
            dependencies: [
                "SettingsAPI", "ViperPOSIX", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: served
        ),
        // The daemon's composition root: configuration, wiring, services.
        .target(
            name: "ViperDaemon",
            dependencies: [
                "ViperPOSIX",
                "SettingsAPI",
                "ViperSettings",
                "ViperStorage",
                "ViperIPC",
                "ViperSystemd",
                "ViperSync",
                "ViperCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: served
        ),
        // settingsctl, the View, without ArgumentParser (so without Foundation): the Varlink client, the renderers,
        // the common command lines, and the launcher that hands the others to settingsctl-full.
        .target(name: "SettingsCLICore", dependencies: ["SettingsAPI", "ViperPOSIX"], swiftSettings: served),
        // The full command-line interface on swift-argument-parser: help, completions, usage errors.
        .target(
            name: "SettingsCLI",
            dependencies: [
                "SettingsAPI",
                "SettingsCLICore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: served
        ),
        // The applier: renders the system's own files from settings (targets, Mustache), checks, replaces and
        // reloads them, following the daemon with Watch; its status and dry run on a Varlink socket of its own.
        .target(
            name: "ViperApply",
            dependencies: [
                "ViperPOSIX",
                "SettingsAPI",
                "ViperSettings",
                "ViperIPC",
                "ViperSystemd",
                "ViperCommandLine",
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: served
        ),
        // The load generator: N blocking connections speaking Varlink or RESP, ops/s and latency histograms.
        .target(
            name: "SettingsBench",
            dependencies: [
                "SettingsAPI",
                "ViperPOSIX",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: served
        ),
        // The services ignore SIGHUP from the C library's initializers on (see ServiceSignals.c).
        .target(name: "CServiceSignals"),
        .executableTarget(
            name: "viper-settingsd",
            dependencies: ["ViperDaemon", "CServiceSignals"],
            swiftSettings: served
        ),
        .executableTarget(name: "settings-bench", dependencies: ["SettingsBench"], swiftSettings: served),
        .executableTarget(
            name: "viper-settings-apply",
            dependencies: ["ViperApply", "CServiceSignals"],
            swiftSettings: served
        ),
        // settingsctl takes its arguments from the C library's initializers (see StartupArguments.c).
        .target(name: "CStartupArguments"),
        .executableTarget(
            name: "settingsctl",
            dependencies: ["SettingsCLICore", "CStartupArguments"],
            swiftSettings: served
        ),
        .executableTarget(name: "settingsctl-full", dependencies: ["SettingsCLI"], swiftSettings: served),
        // The Repository conformance suite every implementation passes.
        .target(
            name: "ViperSettingsTesting",
            dependencies: ["ViperSettings", "SettingsAPI"],
            swiftSettings: strict
        ),
        // Helpers every test target may use: temporary directories, a NOTIFY_SOCKET stand-in, the environment.
        .target(
            name: "ViperTestSupport",
            dependencies: [.product(name: "Logging", package: "swift-log")],
            path: "Tests/ViperTestSupport",
            swiftSettings: strict
        ),
        .testTarget(name: "SettingsAPITests", dependencies: ["SettingsAPI"], swiftSettings: strict),
        .testTarget(
            name: "ViperSettingsTests",
            dependencies: ["ViperSettings", "ViperSettingsTesting", "SettingsAPI", "ViperTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ViperStorageTests",
            dependencies: ["ViperStorage", "ViperSettings", "ViperSettingsTesting", "SettingsAPI", "ViperTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ViperIPCTests",
            dependencies: [
                "ViperIPC", "ViperSettings", "SettingsAPI", "ViperTestSupport",
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ViperSystemdTests",
            dependencies: [
                "ViperTestSupport",
                "ViperSystemd",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ViperSyncTests",
            dependencies: [
                "ViperSync",
                "ViperSettings",
                "SettingsAPI",
                "ViperTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ViperDaemonTests",
            dependencies: [
                "ViperDaemon", "ViperCommandLine", "ViperTestSupport", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ViperApplyTests",
            dependencies: [
                "ViperApply", "SettingsAPI", "ViperTestSupport", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SettingsCLITests",
            dependencies: ["SettingsCLI", "SettingsCLICore", "SettingsAPI", "ViperTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(name: "SettingsBenchTests", dependencies: ["SettingsBench", "SettingsAPI"], swiftSettings: strict),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["SettingsAPI", "ViperSettingsTesting", "ViperTestSupport"],
            swiftSettings: strict
        ),
    ]
)
