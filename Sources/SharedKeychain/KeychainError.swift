import KeychainStorage

/// A failed keychain operation: the Keychain Services status it stands for, and a message a
/// person can act on. Messages name groups, accounts and services, never secret data.
public enum KeychainError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The app named an access group it is not entitled to (`""` included). `entitled` is the
    /// app's list as the device prints it (``AppIdentity/deviceAccessGroupList``).
    case missingEntitlement(group: String, app: String, entitled: [String])
    /// The app was signed without any keychain entitlement (``AppIdentity/hasKeychainEntitlement``):
    /// every call is errSecMissingEntitlement.
    case noKeychainEntitlement(app: String)
    case duplicateItem(PrimaryKey)
    case itemNotFound(query: String)
    case invalidParameter(String)
    /// The storage failed; the case carries the backend's own error.
    case storage(StorageError)
    /// An item whose access control asks the user (presence, biometry, passcode) was not
    /// allowed: errSecAuthFailed (denied), errSecUserCanceled (canceled) or
    /// errSecInteractionNotAllowed (no UI may be shown).
    case authentication(KeychainStatus, String)
    /// The device's fault plan failed the call on purpose (``InjectedFault``): the status is the
    /// rule's, and nothing was read or written.
    case injected(InjectedFault)

    /// The Keychain Services status this error reports.
    public var status: KeychainStatus {
        switch self {
        case .missingEntitlement, .noKeychainEntitlement: .missingEntitlement
        case .duplicateItem: .duplicateItem
        case .itemNotFound: .itemNotFound
        case .invalidParameter: .param
        case .authentication(let status, _): status
        case .injected(let fault): fault.status
        case .storage(let error):
            switch error {
            case .duplicateItem: .duplicateItem
            case .versionConflict: .versionConflict
            case .locked, .deviceLocked: .interactionNotAllowed
            case .unavailable: .notAvailable
            case .timedOut, .lockTimedOut, .backend: .io
            case .corruptItem: .decode
            // A policy denies the app rights over the items: the same answer as a group it
            // is not entitled to, and as final.
            case .refused: .missingEntitlement
            }
        }
    }

    public var message: String {
        switch self {
        case .missingEntitlement(let group, let app, let entitled):
            // The device's console line first, word for word, its list on one line
            // (microsoft-authentication-library-for-objc #1591).
            "Client explicitly specifies access group \(DisplayText(group)) but is only entitled for \(Self.deviceList(entitled)). \(DisplayText(app)) must list the group in its keychain-access-groups entitlement (a wildcard entry such as 'TEAM.*' grants no group but itself)."
        case .noKeychainEntitlement(let app):
            // The device's console line (microsoft-authentication-library-for-objc #1499).
            "Client has neither application-identifier nor keychain-access-groups entitlements. \(DisplayText(app)) was signed without keychain entitlements: sign it with its application-identifier or a keychain-access-groups entitlement."
        case .duplicateItem(let key):
            "an item with \(key) already exists; update it instead"
        case .itemNotFound(let query):
            "no item matches \(query)"
        case .invalidParameter(let message), .authentication(_, let message):
            message
        case .storage(let error):
            error.description
        case .injected(let fault):
            "\(fault); the device's fault plan asked for it, and nothing was read or written (to stop it, \(Remedy.clearFaultPlan))"
        }
    }

    /// The fault the device's plan injected, when this error is one.
    public var injectedFault: InjectedFault? {
        if case .injected(let fault) = self { fault } else { nil }
    }

    public var description: String { "\(status.name) (\(status.rawValue)): \(message)" }

    /// A list as the device prints it (an `NSArray`'s description), on one line: the device
    /// puts each entry on a line of its own, and a message here is always one line.
    static func deviceList(_ entries: [String]) -> String {
        "(" + entries.map { "\"\(DisplayText($0))\"" }.joined(separator: ", ") + ")"
    }

    init(_ error: StorageError) {
        if case .duplicateItem(let key) = error {
            self = .duplicateItem(key)
        } else {
            self = .storage(error)
        }
    }
}

/// The Keychain Services result codes the emulator returns, with Apple's `OSStatus` values, and
/// one of the project's own (``versionConflict``), named `errSK...` so it is never taken for Apple's.
public enum KeychainStatus: Int32, Sendable, CaseIterable, Codable, CustomStringConvertible {
    case success = 0
    /// errSecIO: the storage failed or did not answer in time.
    case io = -36
    /// errSecParam: a parameter was missing or invalid.
    case param = -50
    /// errSecNotAvailable: no keychain (Secret Service) is reachable.
    case notAvailable = -25291
    /// errSecDuplicateItem: an item with the same primary key exists.
    case duplicateItem = -25299
    /// errSecItemNotFound: nothing matched.
    case itemNotFound = -25300
    /// errSecAuthFailed: authentication was refused (the broker refusing a spoofed caller).
    case authFailed = -25293
    /// errSecUserCanceled: the user canceled the authentication an item's access control asked for.
    case userCanceled = -128
    /// errSecInteractionNotAllowed: the keychain is locked and no UI may be shown.
    case interactionNotAllowed = -25308
    /// errSecDecode: a stored item could not be decoded.
    case decode = -26275
    /// errSecMissingEntitlement: the app is not entitled to the access group.
    case missingEntitlement = -34018
    /// The project's own status, not Apple's (Keychain Services has no compare-and-swap): a
    /// conditional update found the item changed since the version it was given. Chosen far
    /// from every range Apple's Security framework uses.
    case versionConflict = -99001

    /// Apple's constant name, `errSecMissingEntitlement`.
    public var name: String {
        switch self {
        case .success: "errSecSuccess"
        case .io: "errSecIO"
        case .param: "errSecParam"
        case .notAvailable: "errSecNotAvailable"
        case .duplicateItem: "errSecDuplicateItem"
        case .itemNotFound: "errSecItemNotFound"
        case .authFailed: "errSecAuthFailed"
        case .userCanceled: "errSecUserCanceled"
        case .interactionNotAllowed: "errSecInteractionNotAllowed"
        case .decode: "errSecDecode"
        case .missingEntitlement: "errSecMissingEntitlement"
        case .versionConflict: "errSKVersionConflict"
        }
    }

    public var description: String { "\(name) (\(rawValue))" }
}

/// An error that stands for a Keychain Services status, with a message a person can act on.
/// Tools built on the library (the CLI among them) report every failure through it.
public protocol StatusReporting: Error {
    var status: KeychainStatus { get }
    var message: String { get }
    /// A finer code than the status, where the failure has a name of its own in the SDKs it
    /// emulates (`interaction_required`); nil otherwise.
    var errorCode: String? { get }
}

extension StatusReporting {
    public var errorCode: String? { nil }
}

extension KeychainError: StatusReporting {}

extension AccessGroupError: StatusReporting {
    public var status: KeychainStatus { .param }
    public var message: String { description }
}

extension EntitlementsError: StatusReporting {
    public var status: KeychainStatus { .param }
    public var message: String { description }
}

extension StorageError: StatusReporting {
    public var status: KeychainStatus { KeychainError(self).status }
    public var message: String { description }
}

extension PrivateFile.Failure: StatusReporting {
    /// errSecParam: the path given is not usable; another one is the fix.
    public var status: KeychainStatus { .param }
    public var message: String { description }
}
