/// Why an entitlements file could not be used. Every message names the file.
public enum EntitlementsError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(file: String, reason: String)
    case missingKey(file: String, key: String)
    case wrongType(file: String, key: String, expected: String, found: String)
    case invalidGroup(file: String, AccessGroupError)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason):
            "cannot read entitlements '\(file)': \(reason)"
        case .missingKey(let file, let key):
            "entitlements '\(file)' have no '\(key)' key; add the array of keychain groups the app may use"
        case .wrongType(let file, let key, let expected, let found):
            "entitlements '\(file)': '\(key)' must be \(expected), but it is \(found)"
        case .invalidGroup(let file, let error):
            "entitlements '\(file)': \(error)"
        }
    }
}
