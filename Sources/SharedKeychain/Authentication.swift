import Foundation
import KeychainStorage

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

/// Asked each time an item's access control would make a device ask the user; nil on a
/// ``Keychain`` means a device that always allows.
public typealias AuthenticationProvider = @Sendable () -> AuthenticationDecision

/// Whether a call may ask the user (`kSecUseAuthenticationUI`).
public enum AuthenticationUI: Sendable, Hashable {
    /// `kSecUseAuthenticationUIAllow` (the default): ask; the device's answer decides.
    case allow
    /// `kSecUseAuthenticationUIFail` (or `kSecUseNoAuthenticationUI: true`): never ask; an item
    /// that would is errSecInteractionNotAllowed (-25308).
    case fail
    /// `kSecUseAuthenticationUISkip`: items that would ask are left out, as if absent.
    case skip
}

extension Keychain {
    /// Fails unless the app may use `items` without asking, or the device allows it, as iOS does
    /// when it decrypts an item whose access control asks the user (reading its data, updating
    /// it); attributes alone and deletes never ask. Messages name the item, never its data.
    func authorize(_ items: [KeychainItem], ui: AuthenticationUI) throws(KeychainError) {
        guard let protected = items.first(where: { $0.accessControl?.asksUser == true }) else { return }
        try authenticate(for: protected.primaryKey.description, ui: ui)
    }

    /// Asks the device (``AuthenticationUI/allow``) or fails without asking (``AuthenticationUI/fail``).
    func authenticate(for what: String, ui: AuthenticationUI) throws(KeychainError) {
        if ui == .fail {
            throw .authentication(
                .interactionNotAllowed,
                "the item with \(what) has an access control that asks the user, and the call forbids asking (kSecUseAuthenticationUIFail)")
        }
        switch authentication?() ?? .allow {
        case .allow:
            return
        case .deny:
            throw .authentication(.authFailed, "authentication for the item with \(what) failed (the device's authentication is 'deny')")
        case .cancel:
            throw .authentication(.userCanceled, "the user canceled authentication for the item with \(what) (the device's authentication is 'cancel')")
        }
    }

    /// Whether updates of `scoped` must check for items that ask the user: not when asking is
    /// allowed and the device would allow.
    func mustCheckAuthentication(_ ui: AuthenticationUI) -> Bool {
        ui != .allow || (authentication?() ?? .allow) != .allow
    }
}
