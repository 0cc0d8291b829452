import Foundation
import SharedKeychain

/// What the device answers when an item's access control asks the user (presence, biometry,
/// passcode), `<state>/device/authentication.json`: `allow`, `deny` or `cancel`, as if the user
/// authenticated, failed, or canceled the prompt. It belongs to the device: `device
/// authentication deny` in one process holds for every other. A device with no file allows.
extension Device {
    /// The file's content: `{"decision": "deny"}`.
    struct AuthenticationState: Codable, Sendable {
        var decision: AuthenticationDecision
    }

    private var authenticationFile: DeviceStateFile<AuthenticationState> {
        DeviceStateFile(
            url: directory.appendingPathComponent("authentication.json"), kind: "an authentication answer",
            repair: .setAuthenticationAnswer, absent: AuthenticationState(decision: .allow))
    }

    /// The answer now. A file that is not one is an error naming it, never taken for an answer.
    public func authenticationDecision() throws(DeviceError) -> AuthenticationDecision {
        try authenticationFile.read().decision
    }

    /// Records `decision`, replacing the file atomically (0600, in a 0700 directory).
    public func setAuthenticationDecision(_ decision: AuthenticationDecision) throws(DeviceError) {
        try authenticationFile.write(AuthenticationState(decision: decision))
    }

    /// What a ``Keychain`` asks when an item's access control asks the user: the file's answer,
    /// read again only when it changed (one `stat` per call). An unreadable file denies, never
    /// allows; ``openStore(_:timeout:logger:)`` checks it first, so a command names the bad file,
    /// and gives it to the store it opens (`ItemStore.userAuthentication`).
    public func authenticationProvider() -> AuthenticationProvider {
        let provider = authenticationFile.provider(unreadable: AuthenticationState(decision: .deny))
        return { provider().decision }
    }
}
