// swift-tools-version: 6.1

// libFuzzer targets for the parsers that read bytes from clients, files and remote servers. Built by
// scripts/fuzz.sh with `-sanitize=fuzzer,address` in its own scratch folder; see README "Development".

import PackageDescription

let settings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "viper-settings-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "viper-settings", path: ".."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-extras/swift-extras-base64", from: "1.2.0"),
    ],
    targets: [
        // The libFuzzer driver every target's top-level code hands its command line to.
        .target(name: "FuzzDriver", swiftSettings: settings),
        // The Varlink frame decoder and message classifier, and the JSON parser under them.
        .executableTarget(
            name: "FuzzVarlinkMessage",
            dependencies: [
                "FuzzDriver",
                .product(name: "ViperIPC", package: "viper-settings"),
                .product(name: "SettingsAPI", package: "viper-settings"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: settings
        ),
        // The schema loader: NAME.json to ModuleSchema.
        .executableTarget(
            name: "FuzzModuleSchema",
            dependencies: [
                "FuzzDriver",
                .product(name: "ViperSettings", package: "viper-settings"),
                .product(name: "SettingsAPI", package: "viper-settings"),
            ],
            swiftSettings: settings
        ),
        // The HTTP source's document parser. ViperSyncParsers/ links the parser's files from Sources/ViperSync, so
        // that the fuzz build does not compile AsyncHTTPClient and BoringSSL.
        .executableTarget(
            name: "FuzzRemoteDocument",
            dependencies: [
                "FuzzDriver",
                .product(name: "ViperSettings", package: "viper-settings"),
                .product(name: "SettingsAPI", package: "viper-settings"),
            ],
            swiftSettings: settings
        ),
        // The etcd gateway's payloads: the watch stream splitter, base64 and the key space's keys and values.
        .executableTarget(
            name: "FuzzEtcdPayload",
            dependencies: [
                "FuzzDriver",
                .product(name: "ViperSettings", package: "viper-settings"),
                .product(name: "SettingsAPI", package: "viper-settings"),
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
            ],
            swiftSettings: settings
        ),
        // The state files: snapshot, journal lines (replayed) and the remote cache.
        .executableTarget(
            name: "FuzzStateFiles",
            dependencies: [
                "FuzzDriver",
                .product(name: "ViperStorage", package: "viper-settings"),
                .product(name: "ViperSettings", package: "viper-settings"),
                .product(name: "SettingsAPI", package: "viper-settings"),
            ],
            swiftSettings: settings
        ),
    ]
)
