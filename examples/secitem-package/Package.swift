// swift-tools-version: 6.1
// A package of keychain code written for iOS, built and tested on Linux against SharedKeychain.
// Nothing in Sources/ or Tests/ knows it is not on iOS.
import PackageDescription

// The SharedKeychain checkout this example lives in; a path dependency's package name is the
// name of its directory, whatever the clone was called.
let sharedKeychain = Context.packageDirectory + "/../.."
let sharedKeychainName = String(Context.packageDirectory.split(separator: "/").dropLast(2).last ?? "SharedKeychain")

let security = Target.Dependency.product(name: "Security", package: sharedKeychainName)

let package = Package(
    name: "ContosoTokens",
    platforms: [.macOS(.v15), .iOS(.v17)],
    dependencies: [.package(path: sharedKeychain)],
    targets: [
        .target(name: "ContosoTokens", dependencies: [security]),
        .testTarget(name: "ContosoTokensTests", dependencies: ["ContosoTokens", security]),
        // SecItem code in every idiom Apple's documentation and the common wrappers use, once in
        // Swift 6 mode and once, the same file, in Swift 5 mode.
        .testTarget(name: "KeychainIdiomTests", dependencies: [security]),
        .testTarget(name: "KeychainIdiomTests5", dependencies: [security], swiftSettings: [.swiftLanguageMode(.v5)]),
    ],
    swiftLanguageModes: [.v6]
)
