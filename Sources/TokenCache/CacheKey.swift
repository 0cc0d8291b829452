import Foundation

/// Key strings as the SDKs write them: trimmed, then lowercased.
enum CacheKey {
    static func normalized(_ raw: String) -> String {
        raw.trimmingWhitespace.lowercased()
    }

    /// The keychain account of every item of one user: `<home_account_id>-<environment>`.
    static func account(homeAccountID: String, environment: String) -> String {
        normalized("\(homeAccountID)-\(environment)")
    }
}
