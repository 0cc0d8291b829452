import Foundation
import PropertyBased
import SharedKeychain
import Testing

/// Issue 30, point 1: generated entitlement dumps as signed apps have them (wildcards,
/// `com.apple.token`, an `application-identifier`, app groups, any key missing, all of them too)
/// are read, and the identity grants exactly the groups listed, literally.
@Suite("Properties: signed entitlement dumps")
struct SignedEntitlementsProperties {
    struct Violation: Error, CustomStringConvertible {
        let description: String
    }

    static let numbers = Gen.uint64(in: 0...UInt64.max).array(of: 8...24)
    static let entries = ["ABCDE12345.*", "$(AppIdentifierPrefix)*", "ABCDE12345.com.contoso.*", "com.apple.token",
                          "$(AppIdentifierPrefix)com.microsoft.adalcache", "ABCDE12345.com.contoso.shared"]

    @Test("every dump is read; a group is entitled only when listed literally; com.apple.token comes last")
    func dumpsGrantExactlyTheListedGroups() throws {
        let team = try TeamIdentifier("ABCDE12345")
        SeededProperty.check("signed entitlement dumps", count: 300, input: Self.numbers) { bits in
            var root: [String: Any] = [:]
            if bits[0] % 2 == 0 {
                root["keychain-access-groups"] = bits.dropFirst(4).prefix(Int(bits[1] % 5)).map { Self.entries[Int($0 % UInt64(Self.entries.count))] }
            }
            if bits[2] % 3 == 0 { root["application-identifier"] = "ABCDE12345.com.contoso.app" }
            if bits[3] % 4 == 0 { root["com.apple.security.application-groups"] = ["group.com.contoso.shared"] }
            let format: PropertyListSerialization.PropertyListFormat = bits[1] % 2 == 0 ? .xml : .binary
            let data = try PropertyListSerialization.data(fromPropertyList: root, format: format, options: 0)
            let entitlements = try Entitlements(propertyList: data, source: "dump")
            let app = try AppIdentity(bundleID: "com.contoso.app", teamID: team, entitlements: entitlements, source: "dump")

            let listed = app.deviceAccessGroupList
            guard listed.last == AppIdentity.tokenGroup, listed.filter({ $0 == AppIdentity.tokenGroup }).count == 1 else {
                throw Violation(description: "com.apple.token must be listed once, last: \(listed)")
            }
            // Any entry, app ID or app group gives access (signing adds the app ID); none gives none.
            let expectsAccess = !(root["keychain-access-groups"] as? [String] ?? []).isEmpty || root["application-identifier"] != nil
                || root["com.apple.security.application-groups"] != nil
            guard app.hasKeychainEntitlement == expectsAccess else {
                throw Violation(description: "keychain entitlement \(app.hasKeychainEntitlement) for \(root)")
            }
            // No pattern matching: the groups a wildcard would cover are never entitled unless listed.
            for probe in ["ABCDE12345.com.microsoft.adalcache", "ABCDE12345.com.contoso.shared", "ABCDE12345.com.contoso.x"]
            where app.isEntitled(to: probe) != app.accessGroupNames.contains(probe) {
                throw Violation(description: "\(probe) entitled by pattern in \(app.accessGroupNames)")
            }
            for name in app.accessGroupNames where !app.isEntitled(to: name) {
                throw Violation(description: "listed \(name) is not entitled")
            }
        }
    }
}
