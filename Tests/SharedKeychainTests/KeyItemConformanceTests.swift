import Foundation
import Testing
@testable import SharedKeychain

/// Key items (`kSecClassKey`) on every backend through the Swift API (SecItem adds keys in a
/// later issue): Apple's primary key (group, key class, key type, application label, application
/// tag, key size, effective key size, synchronizable), found and deleted by tag as MSAL's
/// broker-key queries do, and the password classes kept apart.
@Suite("Keychain conformance: key items")
struct KeyItemConformanceTests {
    typealias Suite = KeychainConformanceTests.Suite

    static let targets = Backend.allCases.map { Target(backend: $0, api: .swift) }

    /// MSAL's broker key: `createBrokerKeyWithError`'s attributes.
    let brokerKey = KeyAttributes(
        keyClass: KeyAttributes.symmetricKeyClass, applicationTag: Data("com.microsoft.adBrokerKey\u{0}".utf8),
        keyType: KeyAttributes.aesKeyType, keySizeInBits: 256, effectiveKeySize: 256)

    var byTag: KeyFields { KeyFields(applicationTag: brokerKey.applicationTag, keyType: KeyAttributes.aesKeyType) }

    @Test(arguments: targets)
    func aKeyIsAddedAndCopiedByItsTag(_ target: Target) throws {
        let suite = try Suite(target)
        let added = try suite.mail.add(NewItem(key: brokerKey, group: suite.shared, data: Data(repeating: 7, count: 32)))
        #expect(added.itemClass == .key)
        #expect(added.account.isEmpty && added.service.isEmpty)
        // Another app of the group finds it by MSAL's query: tag, key type, group.
        let found = try suite.calendar.copyMatching(.key(group: suite.shared, byTag), limit: .all)
        #expect(found.map(\.data) == [Data(repeating: 7, count: 32)])
        #expect(found.first?.key == brokerKey)
        #expect(found.first?.itemClass == .key)
        // Another tag, size or type finds nothing.
        #expect(throws: KeychainError.self) { try suite.calendar.first(.key(group: suite.shared, KeyFields(applicationTag: Data("other".utf8)))) }
        #expect(throws: KeychainError.self) { try suite.calendar.first(.key(group: suite.shared, KeyFields(keySizeInBits: 128))) }
        // An app outside the group does not see it.
        #expect(throws: KeychainError.self) { try suite.notes.first(.key(byTag)) }
    }

    @Test(arguments: targets)
    func everyKeyAttributeMakesAnotherItem(_ target: Target) throws {
        let suite = try Suite(target)
        var variants: [KeyAttributes] = [brokerKey]
        var label = brokerKey
        label.applicationLabel = Data([1, 2, 3])
        var tag = brokerKey
        tag.applicationTag = Data("com.microsoft.other".utf8)
        var keyClass = brokerKey
        keyClass.keyClass = "1"
        var type = brokerKey
        type.keyType = 42
        var size = brokerKey
        size.keySizeInBits = 128
        var effective = brokerKey
        effective.effectiveKeySize = 128
        variants += [label, tag, keyClass, type, size, effective]
        for (index, attributes) in variants.enumerated() {
            try suite.mail.add(NewItem(key: attributes, group: suite.shared, data: Data([UInt8(index)])))
        }
        // The same attributes again are a duplicate, whoever adds it and whatever its data.
        let error = #expect(throws: KeychainError.self) {
            try suite.calendar.add(NewItem(key: brokerKey, group: suite.shared, data: Data([99])))
        }
        #expect(error?.status == .duplicateItem)
        #expect(try suite.mail.copyMatching(.key(group: suite.shared), limit: .all).count == variants.count)
        // A synchronizable twin is another key.
        var twin = NewItem(key: brokerKey, group: suite.shared, data: Data([100]))
        twin.synchronizable = true
        try suite.mail.add(twin)
    }

    @Test(arguments: targets)
    func deletingByTagLeavesThePasswordsAndOtherKeys(_ target: Target) throws {
        let suite = try Suite(target)
        try suite.mail.add(NewItem(key: brokerKey, group: suite.shared, data: Data(repeating: 1, count: 32)))
        var other = brokerKey
        other.applicationTag = Data("com.microsoft.other".utf8)
        try suite.mail.add(NewItem(key: other, group: suite.shared, data: Data([2])))
        try suite.mail.add(NewItem(account: "alice", service: "refreshtoken-c--", group: suite.shared, data: Data("rt".utf8)))
        try suite.mail.add(NewItem(internetAccount: .string("alice"), InternetAttributes(server: "login.example.com"), group: suite.shared, data: Data("web".utf8)))
        // Password queries never reach keys, however little they name.
        var generic = KeychainQuery(group: suite.shared)
        generic.filters.itemClass = .genericPassword
        #expect(try suite.mail.copyMatching(generic, limit: .all).map(\.data) == [Data("rt".utf8)])
        #expect(try suite.mail.copyMatching(.internet(group: suite.shared), limit: .all).map(\.data) == [Data("web".utf8)])

        #expect(try suite.calendar.delete(.key(group: suite.shared, byTag)) == 1)
        #expect(throws: KeychainError.self) { try suite.mail.first(.key(group: suite.shared, byTag)) }
        let left = try suite.mail.copyMatching(KeychainQuery(group: suite.shared), limit: .all)
        #expect(Set(left.map(\.itemClass)) == [.key, .genericPassword, .internetPassword])
        #expect(left.compactMap(\.key) == [other])
        // Deleting the generic passwords leaves the keys.
        #expect(try suite.mail.delete(generic) == 1)
        #expect(try suite.mail.copyMatching(.key(group: suite.shared), limit: .all).map(\.data) == [Data([2])])
    }
}
