// swift-tools-version: 6.1
// Real keychain code written for iOS, built unchanged on Linux against SharedKeychain's `Security`
// product, the one added line being `@_exported import Security`. The code itself is not kept
// here: scripts/third-party-code.sh fetches it at pinned commits into Vendor/ (see README.md).
import PackageDescription

let sharedKeychain = Context.packageDirectory + "/../.."
let sharedKeychainName = String(Context.packageDirectory.split(separator: "/").dropLast(2).last ?? "SharedKeychain")
let security = Target.Dependency.product(name: "Security", package: sharedKeychainName)

// SwiftKeychainWrapper's language mode: 5 by default; the script also tries 6 and reports
// what Swift 6 says about the library's own code.
let wrapperMode: SwiftLanguageMode = Context.environment["SWIFT_KEYCHAIN_WRAPPER_MODE"] == "6" ? .v6 : .v5

let package = Package(
    name: "ThirdPartyCode",
    platforms: [.macOS(.v15), .iOS(.v17)],
    dependencies: [.package(path: sharedKeychain)],
    targets: [
        // Apple's GenericKeychain sample, the same files in Swift 6 and in Swift 5 mode.
        .target(name: "GenericKeychain", dependencies: [security], path: "Vendor/GenericKeychain"),
        .target(
            name: "GenericKeychain5", dependencies: [security], path: "Vendor/GenericKeychain5",
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(
            name: "SwiftKeychainWrapper", dependencies: [security], path: "Vendor/SwiftKeychainWrapper",
            swiftSettings: [.swiftLanguageMode(wrapperMode)]),
        .testTarget(name: "ThirdPartyCodeTests", dependencies: ["GenericKeychain", "GenericKeychain5", "SwiftKeychainWrapper", security]),
    ],
    swiftLanguageModes: [.v6]
)
