import Foundation

/// The user the emulated issuer mints tokens for.
struct IssuedUser: Sendable, Hashable, Codable {
    var homeAccountID: String
    var objectID: String
    var tenantID: String
    var username: String
    var name: String

    /// `client_info` as the server returns it: base64url of `{"uid": oid, "utid": tid}`.
    var clientInfo: String {
        let uid = homeAccountID.split(separator: ".", maxSplits: 1).first.map(String.init) ?? objectID
        let utid = homeAccountID.split(separator: ".", maxSplits: 1).dropFirst().first.map(String.init) ?? tenantID
        return Base64URL.encode(CacheJSON.data(["uid": .string(uid), "utid": .string(utid)]))
    }

    func account(environment: String) -> CachedAccount {
        CachedAccount(
            homeAccountID: homeAccountID, environment: environment, tenantID: tenantID,
            localAccountID: objectID, username: username, name: name, authorityType: .msSTS)
    }

    /// A display name from the username's local part: `alice.smith@…` becomes `Alice Smith`.
    static func displayName(for username: String) -> String {
        let local = username.split(separator: "@").first.map(String.init) ?? username
        let words = local.split(whereSeparator: { $0 == "." || $0 == "_" || $0 == "-" })
        return words.isEmpty ? username : words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    }
}
