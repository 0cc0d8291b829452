import Foundation

/// What the emulated device answers when an item's access control asks the user (presence,
/// biometry, passcode): the outcome of the prompt a real device would show.
public enum AuthenticationDecision: String, Sendable, Hashable, Codable, CaseIterable {
    /// The user authenticated: the item is used.
    case allow
    /// Authentication failed: errSecAuthFailed (-25293).
    case deny
    /// The user canceled the prompt: errSecUserCanceled (-128).
    case cancel
}

/// Asked each time an item's access control would make a device ask the user. A store carries
/// its device's (``ItemStore/userAuthentication``), so every keychain made on the store asks it.
public typealias AuthenticationProvider = @Sendable () -> AuthenticationDecision
