import Foundation
import KeychainStorage

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
        try Self.authorizeData(of: items, from: store, ui: ui)
    }

    /// The rule ``copyMatching(_:limit:returningData:authenticationUI:)`` applies, for a reader
    /// that takes items' data from `store` without a keychain (a group snapshot): fails unless
    /// no item of `items` has an access control that asks the user, or `store`'s device allows.
    public static func authorizeData(of items: [KeychainItem], from store: any ItemStore, ui: AuthenticationUI = .allow) throws(KeychainError) {
        guard let protected = items.first(where: { $0.accessControl?.asksUser == true }) else { return }
        try authenticate(for: protected.primaryKey.description, ui: ui, answer: store.userAuthentication)
    }

    /// Asks the device (``AuthenticationUI/allow``) or fails without asking (``AuthenticationUI/fail``).
    private static func authenticate(for what: String, ui: AuthenticationUI, answer: AuthenticationProvider?) throws(KeychainError) {
        if ui == .fail {
            throw .authentication(
                .interactionNotAllowed,
                "the item with \(what) has an access control that asks the user, and the call forbids asking (kSecUseAuthenticationUIFail)")
        }
        switch answer?() ?? .allow {
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
