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
        case .interactionNotAllowed: "errSecInteractionNotAllowed"
        case .decode: "errSecDecode"
        case .missingEntitlement: "errSecMissingEntitlement"
        case .versionConflict: "errSKVersionConflict"
        }
    }

    public var description: String { "\(name) (\(rawValue))" }
}
