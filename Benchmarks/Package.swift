// swift-tools-version: 6.1
// Benchmarks live in their own package so `swift test` in the root never builds the benchmark
// framework. Run with `swift package benchmark` in this directory.
import PackageDescription

let package = Package(
    name: "SharedKeychainBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named, so the product references below do not depend on the checkout's folder name.
        .package(name: "SharedKeychain", path: "../"),
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "KeychainBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "SharedKeychain", package: "SharedKeychain"),
                .product(name: "KeychainStorage", package: "SharedKeychain"),
                .product(name: "SecretServiceStorage", package: "SharedKeychain"),
                .product(name: "TokenCache", package: "SharedKeychain"),
                .product(name: "LoadGeneration", package: "SharedKeychain"),
                .product(name: "SuiteManifest", package: "SharedKeychain"),
            ],
            path: "Benchmarks/KeychainBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
