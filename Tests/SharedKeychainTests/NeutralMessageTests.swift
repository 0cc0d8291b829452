import Foundation
import KeychainStorage
import Testing

/// Library messages are for any caller: they say what to do, never which command-line flag or
/// command does it (the CLI words those itself, through FrontEndWording).
@Suite("Library messages name no CLI flag or command")
struct NeutralMessageTests {
    /// A flag (`--timeout`) or a command of the tool (`shared-keychain device unlock`).
    static func namesCLIWords(_ message: String) -> Bool {
        message.range(of: #"--[a-z]|shared-keychain [a-z]|`(device|keyring|suite|token|item) "#, options: .regularExpression) != nil
    }

    @Test(arguments: Remedy.allCases)
    func remedies(_ remedy: Remedy) {
        #expect(!Self.namesCLIWords(remedy.description), "\(remedy.description)")
    }

    @Test func storageErrors() {
        let errors: [StorageError] = [
            .locked(collection: "login"),
            .deviceLocked(.untilFirstUnlock),
            .deviceLocked(.untilUnlocked),
            .timedOut(operation: "search", seconds: 2),
            .lockTimedOut(group: "ABCDE12345.g", lockFile: "/tmp/g.lock", seconds: 2, holder: nil),
            .lockTimedOut(group: "ABCDE12345.g", lockFile: "/tmp/g.lock", seconds: 2, holder: LockHolder(pid: 7, command: "app", state: .running)),
        ]
        for error in errors {
            #expect(!Self.namesCLIWords(error.description), "\(error.description)")
        }
        #expect(StorageError.timedOut(operation: "search", seconds: 2).description.hasSuffix("(raise the store's timeout)"))
    }
}
