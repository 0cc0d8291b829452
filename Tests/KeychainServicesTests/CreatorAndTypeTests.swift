import Foundation
import KeychainServices
import KeychainTestSupport
import SharedKeychain
import Testing

/// `kSecAttrCreator` and `kSecAttrType` as Apple has them: caller-set unsigned 32-bit numbers
/// (FourCharCodes), absent unless set, matched in queries. iOS records nothing about which app
/// added an item, so an item added without a creator returns none.
@Suite("SecItem: kSecAttrCreator and kSecAttrType are the caller's numbers")
struct CreatorAndTypeTests {
    let base: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc"]

    func attributes(_ apps: Apps, _ query: [String: Any]) -> [[String: Any]]? {
        var result: CFTypeRef?
        let status = apps.run(apps.mail) {
            SecItemCopyMatching(
                base.merging(query) { $1 }.merging([kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll]) { $1 }
                    as CFDictionary, &result)
        }
        return status == errSecSuccess ? result as? [[String: Any]] : nil
    }

    /// Was: the keychain core filled the creator with the adding app's bundle ID and SecItem
    /// returned it as kSecAttrCreator, which no device does.
    @Test(arguments: TestBackend.memoryAndKeyring)
    func anItemAddedWithoutACreatorReturnsNone(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        let status = apps.run(apps.mail) {
            SecItemAdd(base.merging([kSecAttrAccount as String: "plain", kSecValueData as String: Data("s".utf8)]) { $1 } as CFDictionary, nil)
        }
        #expect(status == errSecSuccess)
        let found = try #require(attributes(apps, [kSecAttrAccount as String: "plain"]))
        #expect(found.count == 1)
        #expect(found.first?[kSecAttrCreator as String] == nil)
        #expect(found.first?[kSecAttrType as String] == nil)
        // The emulator's provenance is kept, but never as a SecItem attribute.
        #expect(found.first?.values.contains { $0 as? String == "com.contoso.mail" } == false)
    }

    /// A creator and a type the caller sets come back as the same unsigned 32-bit numbers and
    /// select items in queries, the largest FourCharCode included.
    @Test(arguments: TestBackend.memoryAndKeyring)
    func callerSetCreatorAndTypeRoundTripAndMatch(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        let aapl: UInt32 = 0x6161_706C  // 'aapl'
        let items: [(String, Any, Any)] = [("one", NSNumber(value: aapl), NSNumber(value: 2001)), ("two", UInt32.max, 7), ("three", 0, UInt32(2001))]
        for (account, creator, type) in items {
            let status = apps.run(apps.mail) {
                SecItemAdd(
                    base.merging([
                        kSecAttrAccount as String: account, kSecAttrCreator as String: creator, kSecAttrType as String: type,
                        kSecValueData as String: Data("s".utf8),
                    ]) { $1 } as CFDictionary, nil)
            }
            #expect(status == errSecSuccess, "\(account)")
        }
        let one = try #require(attributes(apps, [kSecAttrAccount as String: "one"])?.first)
        #expect((one[kSecAttrCreator as String] as? NSNumber)?.uint32Value == aapl)
        #expect((one[kSecAttrType as String] as? NSNumber)?.uint32Value == 2001)
        let two = try #require(attributes(apps, [kSecAttrAccount as String: "two"])?.first)
        #expect((two[kSecAttrCreator as String] as? NSNumber)?.uint32Value == UInt32.max)
        let byCreator = attributes(apps, [kSecAttrCreator as String: NSNumber(value: aapl)])
        #expect(byCreator?.compactMap { $0[kSecAttrAccount as String] as? String } == ["one"])
        let byZero = attributes(apps, [kSecAttrCreator as String: 0])
        #expect(byZero?.compactMap { $0[kSecAttrAccount as String] as? String } == ["three"])
        let byType = attributes(apps, [kSecAttrType as String: 2001])
        #expect(byType?.compactMap { $0[kSecAttrAccount as String] as? String } == ["one", "three"])
        #expect(attributes(apps, [kSecAttrCreator as String: 12345]) == nil)
        // An update sets a new creator; the old one no longer matches.
        apps.run(apps.calendar) {
            #expect(SecItemUpdate(base.merging([kSecAttrAccount as String: "three"]) { $1 } as CFDictionary,
                                  [kSecAttrCreator as String: 42] as CFDictionary) == errSecSuccess)
        }
        #expect(attributes(apps, [kSecAttrCreator as String: 42])?.compactMap { $0[kSecAttrAccount as String] as? String } == ["three"])
        #expect(attributes(apps, [kSecAttrCreator as String: 0]) == nil)
    }

    /// Out of range or of the wrong type is errSecParam, and nothing is written.
    @Test(arguments: TestBackend.memoryAndKeyring)
    func aCreatorOutsideUInt32IsRefused(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        for bad: Any in [-1, 4_294_967_296, "aapl", Data([1, 2, 3, 4])] {
            let status = apps.run(apps.mail) {
                SecItemAdd(base.merging([kSecAttrAccount as String: "a", kSecAttrCreator as String: bad, kSecValueData as String: Data("s".utf8)]) { $1 }
                    as CFDictionary, nil)
            }
            #expect(status == errSecParam, "\(bad)")
        }
        #expect(try apps.everything().isEmpty)
    }
}
