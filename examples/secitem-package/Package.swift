// swift-tools-version: 6.1
// A package of keychain code written for iOS, built and tested on Linux against SharedKeychain.
// Nothing in Sources/ or Tests/ knows it is not on iOS.
import PackageDescription

// The SharedKeychain checkout this example lives in; a path dependency's package name is the
// name of its directory, whatever the clone was called.
let sharedKeychain = Context.packageDirectory + "/../.."
let sharedKeychainName = String(Context.packageDirectory.split(separator: "/").dropLast(2).last ?? "SharedKeychain")

let package = Package(
    name: "ContosoTokens",
    platforms: [.macOS(.v15), .iOS(.v17)],
    dependencies: [.package(path: sharedKeychain)],
    targets: [
        .target(name: "ContosoTokens", dependencies: [.product(name: "Security", package: sharedKeychainName)]),
        .testTarget(name: "ContosoTokensTests", dependencies: ["ContosoTokens", .product(name: "Security", package: sharedKeychainName)]),
    ],
    swiftLanguageModes: [.v6]
)
