import Foundation
import KeychainTestSupport
import SharedKeychain
import Testing
@testable import TokenCache

/// Items another app of the group crafted (issue 27, finding 1): ADAL-looking legacy items and
/// wipe records whose archives swift-corelibs-foundation's `NSKeyedUnarchiver` stopped the
/// process on, and JSON nested 20,000 deep. Each is skipped as the SDK skips it, reported once,
/// and every other app's accounts stay.
@Suite("Hostile items: skipped and reported, never fatal")
struct HostileItemTests {
    static let alice = "alice@contoso.com"

    /// The suite with Alice signed in through Mail, and Calendar's cache reporting what it skips.
    struct Planted {
        let suite: Suite
        let calendar: TokenCache
        let report: SkippedItemReport

        init() throws {
            suite = try Suite(.memory)
            _ = try suite.mail.signIn(username: HostileItemTests.alice)
            report = SkippedItemReport()
            var configuration = suite.calendar.configuration
            configuration.skippedItems = report
            calendar = try TokenCache(keychain: suite.calendar.keychain, configuration: configuration, now: suite.clock.function)
        }

        /// Adds `data` as another app of the group would: a legacy item of Alice's UPN keyed as
        /// Calendar's refresh token, or the wipe record.
        @discardableResult
        func plant(_ data: Data, asWipeRecord: Bool = false, type: UInt32? = nil) throws -> KeychainItem {
            let hostile = try suite.app("com.fabrikam.hostile", client: "hostile")
            var item: NewItem
            if asWipeRecord {
                item = NewItem(account: WipeRecord.account, service: WipeRecord.service, group: suite.group, data: data)
                item.generic = Data(WipeRecord.generic.utf8)
            } else {
                let key = LegacyTokenCacheKey(
                    environment: "login.microsoftonline.com", realm: "common", clientID: Suite.calendarClient, resource: nil, userID: HostileItemTests.alice)
                item = NewItem(account: key.account, service: type == nil ? key.service : "refreshtoken-\(Suite.calendarClient)--", group: suite.group, data: data)
                item.generic = LegacyTokenCacheKey.generic
                item.type = type
            }
            return try hostile.keychain.add(item)
        }

        /// The report names `item` exactly once, with a reason.
        func expectReportedOnce(_ item: KeychainItem, sourceLocation: SourceLocation = #_sourceLocation) {
            let named = report.items.filter { $0.account == item.account && $0.service == item.service && $0.group == item.group }
            #expect(named.count == 1, "reported: \(report.items)", sourceLocation: sourceLocation)
            #expect(named.first?.reason.isEmpty == false, sourceLocation: sourceLocation)
            #expect(report.items.count == 1, "reported: \(report.items)", sourceLocation: sourceLocation)
        }
    }

    /// The legacy shapes that stopped `token accounts` and `token remove` (SIGILL: "Invalid
    /// object reference", "Value was of unexpected class"; SIGSEGV on nesting and cycles).
    @Test(arguments: HostileArchive.Shape.allCases)
    func hostileLegacyItemIsSkipped(_ shape: HostileArchive.Shape) throws {
        let planted = try Planted()
        var adalConfiguration = planted.calendar.configuration
        adalConfiguration.sdk = .adal
        let adal = try TokenCache(keychain: planted.calendar.keychain, configuration: adalConfiguration, now: planted.suite.clock.function)
        let adalAccounts = try adal.accounts()
        let item = try planted.plant(HostileArchive.archive(shape, rootClass: LegacyTokenCacheItem.archivedClassName))

        #expect(try planted.calendar.accounts().map(\.username) == [Self.alice])
        let silent = try planted.calendar.acquireTokenSilent(account: Self.alice, scopes: ["user.read"])
        #expect(silent.account.username == Self.alice)
        #expect(try adal.accounts() == adalAccounts)
        #expect(try planted.calendar.remove(account: Self.alice) > 0)
        #expect(try adal.remove(account: Self.alice) >= 0)
        planted.expectReportedOnce(item)
        // The hostile item is left where it is: a reader skips it, it does not delete it.
        #expect(try planted.suite.items().contains { $0.primaryKey == item.primaryKey })
    }

    /// The wipe-record shapes that stopped `token wipe-info`, `cache export` and `token remove`.
    @Test(arguments: HostileArchive.Shape.allCases)
    func hostileWipeRecordIsSkipped(_ shape: HostileArchive.Shape) throws {
        let planted = try Planted()
        let item = try planted.plant(HostileArchive.archive(shape, rootClass: "NSDictionary"), asWipeRecord: true)

        #expect(try planted.calendar.wipeInfo() == nil)
        let export = try planted.calendar.exportCache()
        #expect(CacheJSON.object(from: export)?["RefreshToken"]?.objectValue?.isEmpty == false)
        #expect(try planted.calendar.accounts().map(\.username) == [Self.alice])
        planted.expectReportedOnce(item)
        // A removal writes the record anew, as the SDK does after deleting a refresh token
        // (Calendar's own, which its silent request redeemed from the family's).
        _ = try planted.calendar.acquireTokenSilent(account: Self.alice, scopes: ["user.read"], forceRefresh: true)
        #expect(try planted.calendar.remove(account: Self.alice) > 0)
        #expect(try planted.calendar.wipeInfo()?.bundleID == "com.contoso.calendar")
    }

    /// JSON nested 20,000 deep in a credential's place: `JSONSerialization` refuses it (it
    /// stops at 512 levels), the item is skipped and reported, and the export goes on.
    @Test func deeplyNestedJSONIsSkipped() throws {
        let planted = try Planted()
        let deep = Data((String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000)).utf8)
        let item = try planted.plant(deep, type: CredentialType.refreshToken.itemType)
        #expect(try planted.calendar.accounts().map(\.username) == [Self.alice])
        #expect(throws: Never.self) { try planted.calendar.exportCache() }
        #expect(try planted.calendar.acquireTokenSilent(account: Self.alice, scopes: ["user.read"]).account.username == Self.alice)
        planted.expectReportedOnce(item)
    }

    /// Each shape is refused by the bounded reader with its own typed error.
    @Test func eachShapeHasItsTypedError() {
        let allowed = LegacyTokenCacheItem.archivedClasses
        func error(_ shape: HostileArchive.Shape) -> ItemDecodingError? {
            do {
                // 1,000 levels: 20,000 are refused sooner, for holding over 100,000 objects.
                let data = HostileArchive.archive(shape, rootClass: LegacyTokenCacheItem.archivedClassName, depth: 1_000)
                _ = try KeyedArchive.root(of: data, allowing: allowed)
                return nil
            } catch {
                return error
            }
        }
        #expect(error(.rootOutOfRange) == .referenceOutOfRange(count: 6))
        #expect(error(.referenceOutOfRange) == .referenceOutOfRange(count: 6))
        #expect(error(.classRecordNotAClass) == .notAClass(reference: 3))
        #expect(error(.classRecordIsData) == .notAClass(reference: 6))
        #expect(error(.selfReference) == .cycle)
        #expect(error(.cycle) == .cycle)
        #expect(error(.deepNesting) == .tooDeep(limit: 64))
        #expect(error(.sharedReferenceBomb) == .tooManyObjects(count: 100_001, limit: 100_000))
        #expect(throws: ItemDecodingError.tooManyObjects(count: 180_043, limit: 100_000)) {
            try KeyedArchive.root(of: HostileArchive.archive(.deepNesting, rootClass: "NSDictionary"), allowing: allowed)
        }
        #expect(error(.notAnArchive) != nil)
        #expect(error(.truncated) != nil)
        // A field of the wrong class is refused when the item is read, as secure coding refuses it.
        #expect(error(.wrongType) == nil)
        let wrong = #expect(throws: FieldError.self) {
            try LegacyTokenCacheItem(archive: HostileArchive.archive(.wrongType, rootClass: LegacyTokenCacheItem.archivedClassName))
        }
        #expect(wrong?.reason == "'authority' must be a string, but it is data")
        // A class the reader does not allow.
        #expect(throws: FieldError.self) { try WipeRecord(data: HostileArchive.archive(.selfReference, rootClass: "NSSecretThing")) }
    }

    /// What the emulator and ADAL write still reads back through the bounded reader.
    @Test func archivesTheSDKWritesStillRead() throws {
        let record = WipeRecord(bundleID: "com.contoso.mail", wipeTime: Date(timeIntervalSince1970: 1_700_000_000))
        #expect(try WipeRecord(data: record.archive()) == record)
        let item = LegacyTokenCacheItem(
            authority: "https://login.microsoftonline.com/common", accessToken: nil, refreshToken: "rt", idToken: nil,
            clientID: "client", resource: nil, familyID: "1", expiresOn: Date(timeIntervalSince1970: 1_700_000_000),
            cachedAt: nil, extendedExpiresOn: Date(timeIntervalSince1970: 1_700_000_100), homeAccountID: "uid.utid")
        #expect(try LegacyTokenCacheItem(archive: item.archive()) == item)
    }
}
