// swift-tools-version: 6.1
import PackageDescription

let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "SharedKeychain",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SharedKeychain", targets: ["SharedKeychain"]),
        .library(name: "TokenCache", targets: ["TokenCache"]),
        // Apple's SecItem API on Linux, and `Security`, which re-exports it so that iOS code
        // with `import Security` compiles unchanged.
        .library(name: "KeychainServices", targets: ["KeychainServices"]),
        .library(name: "Security", targets: ["Security"]),
        .library(name: "LoadGeneration", targets: ["LoadGeneration"]),
        .library(name: "Scenarios", targets: ["Scenarios"]),
        .library(name: "KeychainStorage", targets: ["KeychainStorage"]),
        .library(name: "SecretServiceStorage", targets: ["SecretServiceStorage"]),
        // For the Benchmarks package's `suite blast-radius` benchmarks.
        .library(name: "SuiteManifest", targets: ["SuiteManifest"]),
        .executable(name: "shared-keychain", targets: ["shared-keychain"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // `swift package generate-documentation` (scripts/docs.sh, run in CI).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // Layer 0: the C library, found through pkg-config.
        .systemLibrary(
            name: "CLibsecret",
            pkgConfig: "libsecret-1",
            providers: [.apt(["libsecret-1-dev", "libglib2.0-dev"])]
        ),
        // Layer 0: pidfd_open(2), to wait for a daemon's exit as an event rather than by polling.
        .target(name: "CProcessExit"),
        // Layer 0: futex(2) on a file mapping shared between processes, so a process waiting
        // for an access group's lock wakes when its holder lets go.
        .target(name: "CFutex"),
        // Layer 1: storage backends behind one protocol.
        .target(
            name: "KeychainStorage",
            dependencies: [.product(name: "OrderedCollections", package: "swift-collections")],
            swiftSettings: strict
        ),
        .target(
            name: "SecretServiceStorage",
            dependencies: [
                "CFutex",
                "CLibsecret",
                "CProcessExit",
                "KeychainStorage",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Layer 2: access groups, app identities, Keychain Services semantics.
        .target(
            name: "SharedKeychain",
            dependencies: ["KeychainStorage"],
            swiftSettings: strict
        ),
        // Layer 3: the MSAL-layout token cache of a shared group.
        .target(
            name: "TokenCache",
            dependencies: ["SharedKeychain", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        // Layer 4: suites of apps as they are configured (manifest, plists, registration rules).
        .target(
            name: "SuiteManifest",
            dependencies: ["SharedKeychain", "TokenCache", .product(name: "Yams", package: "Yams")],
            swiftSettings: strict
        ),
        // Layer 4: the device a state directory stands for: the apps installed on it.
        .target(
            name: "Device",
            dependencies: [
                "KeychainStorage", "SecretServiceStorage", "SharedKeychain", "SuiteManifest", "Mitigations",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Layer 4: Apple's SecItem API (kSec* dictionaries, OSStatus) over the keychain core, for
        // iOS keychain code on Linux; the app and the store come from the environment.
        .target(
            name: "KeychainServices",
            dependencies: ["SharedKeychain", "Device", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .target(name: "Security", dependencies: ["KeychainServices"], swiftSettings: strict),
        // Layer 4: opt-in mitigations (audit journal, guarded delete, group policy, snapshots).
        .target(
            name: "Mitigations",
            dependencies: ["SharedKeychain", "TokenCache"],
            swiftSettings: strict
        ),
        // Layer 5: what every simulation shares: the simulated app (a resolved app and the
        // keychain the device makes for it), the clock, the start barrier, the line protocol
        // of child processes.
        .target(
            name: "Simulation",
            dependencies: ["Device", "Mitigations", "TokenCache", "SharedKeychain", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        // Layer 6: the built-in hazards, each run unmitigated and with the mitigations.
        .target(
            name: "Hazards",
            dependencies: ["Simulation", "Device", "SharedKeychain", "TokenCache", "Mitigations"],
            swiftSettings: strict
        ),
        // Layer 6: scenario files of steps for a suite's apps, run in processes or in process.
        .target(
            name: "Scenarios",
            dependencies: [
                "Simulation", "Device", "SharedKeychain", "TokenCache", "SuiteManifest", "Mitigations",
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strict
        ),
        // Layer 6: load generation across simulated apps, in threads or processes.
        .target(
            name: "LoadGeneration",
            dependencies: [
                "Simulation", "Device", "Mitigations", "SharedKeychain", "TokenCache",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: strict
        ),
        // The CLI: parses arguments and prints; the logic lives in the libraries.
        .executableTarget(
            name: "shared-keychain",
            dependencies: [
                "SharedKeychain",
                "KeychainStorage",
                "SecretServiceStorage",
                "TokenCache",
                "SuiteManifest",
                "Device",
                "LoadGeneration",
                "Mitigations",
                "Hazards",
                "Scenarios",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Test support: a private gnome-keyring on a private D-Bus session, started and stopped
        // by the tests themselves. Never linked into the CLI.
        .target(
            name: "KeychainTestSupport",
            dependencies: ["KeychainStorage", "SecretServiceStorage"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SecretServiceStorageTests",
            dependencies: [
                "SecretServiceStorage", "KeychainStorage", "KeychainTestSupport", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SharedKeychainTests",
            dependencies: ["SharedKeychain", "KeychainStorage", "SecretServiceStorage", "KeychainTestSupport", "KeychainServices"],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DeviceTests",
            dependencies: ["Device", "SuiteManifest", "TokenCache", "Mitigations", "SharedKeychain", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "KeychainServicesTests",
            dependencies: ["KeychainServices", "SharedKeychain", "Device", "SuiteManifest", "KeychainTestSupport", "Mitigations"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TokenCacheTests",
            dependencies: ["TokenCache", "SharedKeychain", "KeychainTestSupport", "Simulation"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SuiteManifestTests",
            dependencies: ["SuiteManifest", "SharedKeychain", "TokenCache"],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LoadGenerationTests",
            dependencies: [
                "LoadGeneration", "Simulation", "Mitigations", "SharedKeychain", "TokenCache", "KeychainTestSupport", "Device",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SimulationTests",
            dependencies: [
                "Simulation", "Device", "Mitigations", "SharedKeychain", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HazardTests",
            dependencies: [
                "Hazards", "Mitigations", "SharedKeychain", "TokenCache", "KeychainTestSupport", "SecretServiceStorage", "Device",
                "Simulation", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ScenarioTests",
            dependencies: ["Scenarios", "SharedKeychain", "KeychainStorage", "KeychainTestSupport", "TokenCache", "Simulation"],
            swiftSettings: strict
        ),
        // Property-based tests: generated operation sequences against the in-memory model, and
        // generated malformed input for every reader. Seeded (SHARED_KEYCHAIN_PROPERTY_SEED).
        .testTarget(
            name: "PropertyTests",
            dependencies: [
                "SharedKeychain", "KeychainStorage", "KeychainTestSupport", "SuiteManifest", "TokenCache", "LoadGeneration", "SecretServiceStorage", "Device",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["SharedKeychain", "SecretServiceStorage", "KeychainTestSupport"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
