import Foundation
import KeychainTestSupport
import PropertyBased
import SharedKeychain
import Testing
@testable import TokenCache

/// Generated hostile values planted in the shared group by one app (issue 27, finding 1): keyed
/// archives (random object tables with references in and out of range, class records that are
/// not classes, cycles, deep chains, shared-reference bombs, cut or flipped bytes) and JSON
/// (deep, truncated, fields of the wrong type), as ADAL legacy items, the wipe record,
/// credentials, account metadata and app metadata. Every reader of another app goes on: no
/// crash, no hang, Alice's account still listed, and each unreadable item reported once.
@Suite("Properties: hostile items in the group are skipped, never fatal")
struct HostileItemProperties {
    static let alice = "alice@contoso.com"
    static let mailClient = "0a1b2c3d-1111-4111-8111-111111111111"
    static let calendarClient = "0a1b2c3d-2222-4222-8222-222222222222"

    /// Two family apps and a hostile one of one team, on `backend`; Calendar reports what it skips.
    struct Group {
        let group: String
        let mail: TokenCache
        let calendar: TokenCache
        let adal: TokenCache
        let hostile: Keychain
        let report = SkippedItemReport()

        init(_ backend: TestBackend) throws {
            let store = try backend.makeStore()
            let team = try TeamIdentifier(TestBackend.uniqueTeamID())
            group = "\(team.rawValue).com.microsoft.adalcache"
            func keychain(_ bundleID: String) throws -> Keychain {
                let entitlements = Entitlements(keychainAccessGroups: ["$(AppIdentifierPrefix)com.microsoft.adalcache"])
                return Keychain(app: try AppIdentity(bundleID: bundleID, teamID: team, entitlements: entitlements, source: bundleID), store: store)
            }
            // Mail is an ADAL app: its sign-ins write ADAL's legacy items beside MSAL's, so the
            // ADAL reader has Alice to list too.
            mail = try TokenCache(
                keychain: keychain("com.contoso.mail"), configuration: TokenCacheConfiguration(clientID: HostileItemProperties.mailClient, familyID: "1", sdk: .adal))
            var configuration = TokenCacheConfiguration(clientID: HostileItemProperties.calendarClient, familyID: "1")
            configuration.skippedItems = report
            let calendarKeychain = try keychain("com.contoso.calendar")
            calendar = try TokenCache(keychain: calendarKeychain, configuration: configuration)
            configuration.sdk = .adal
            adal = try TokenCache(keychain: calendarKeychain, configuration: configuration)
            hostile = try keychain("com.fabrikam.hostile")
        }

        /// Puts `data` at the place `slot` names, replacing what the hostile app put there before.
        func plant(_ data: Data, in slot: Int) throws -> PrimaryKey {
            var item: NewItem
            switch slot % 5 {
            case 0:
                let key = LegacyTokenCacheKey(
                    environment: "login.microsoftonline.com", realm: "common", clientID: HostileItemProperties.calendarClient, resource: nil,
                    userID: HostileItemProperties.alice)
                item = NewItem(account: key.account, service: key.service, group: group, data: data)
                item.generic = LegacyTokenCacheKey.generic
            case 1:
                item = NewItem(account: WipeRecord.account, service: WipeRecord.service, group: group, data: data)
                item.generic = Data(WipeRecord.generic.utf8)
            case 2:
                item = NewItem(account: "hostile.home-login.microsoftonline.com", service: "refreshtoken-\(HostileItemProperties.calendarClient)--", group: group, data: data)
                item.type = CredentialType.refreshToken.itemType
            case 3:
                item = NewItem(account: "authority_map", service: "hostile-client", group: group, data: data)
                item.type = ItemType.accountMetadata
            default:
                item = NewItem(account: "login.microsoftonline.com", service: "appmetadata-hostile", group: group, data: data)
                item.type = ItemType.appMetadata
            }
            _ = try? hostile.delete(KeychainQuery(group: group, account: item.account, service: item.service))
            return try hostile.add(item).primaryKey
        }

        /// Every reader of Calendar (MSAL and ADAL) over the group: Alice is still there.
        func readEverything(remove: Bool) throws {
            let accounts = try calendar.accounts().map(\.username)
            guard accounts == [HostileItemProperties.alice] else { throw Failure("Calendar lists \(accounts)") }
            guard try adal.accounts().map(\.username) == [HostileItemProperties.alice] else { throw Failure("the ADAL app lost Alice") }
            _ = try calendar.acquireTokenSilent(account: HostileItemProperties.alice, scopes: ["user.read"])
            _ = try calendar.wipeInfo()
            let export = try calendar.exportCache()
            guard CacheJSON.object(from: export)?["RefreshToken"]?.objectValue?.isEmpty == false else { throw Failure("the export lost the refresh tokens") }
            if remove {
                _ = try adal.remove(account: HostileItemProperties.alice)
                _ = try calendar.remove(account: HostileItemProperties.alice)
                // Calendar signed Alice out for itself (its account metadata says so) until it
                // signs her in again.
                _ = try mail.signIn(username: HostileItemProperties.alice)
                _ = try calendar.signIn(username: HostileItemProperties.alice)
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static let classNames = ["ADTokenCacheStoreItem", "ADUserInformation", "NSArray", "NSDictionary", "NSString", "NSDate", "NSData", "NSSecret"]
    static let fieldNames = [
        "authority", "clientId", "refreshToken", "userInformation", "rawIdToken", "NS.objects", "NS.keys", "NS.string", "NS.time",
        "bundleId", "wipeTime", "homeAccountId", "additionalServer", "expiresOn",
    ]

    /// A random archive: a table of up to 12 entries whose references may point anywhere.
    static func randomArchive(_ bits: [UInt64]) -> Data {
        var source = bits
        func next() -> UInt64 { source.popLast() ?? 7 }
        let count = Int(next() % 12) + 1
        var entries: [HostileArchive.Entry] = []
        for _ in 0..<count {
            let value = next()
            switch value % 6 {
            case 0: entries.append(.null)
            case 1: entries.append(.string("s\(value % 1000)"))
            case 2: entries.append(.classRecord(classNames[Int(value >> 8) % classNames.count]))
            case 3: entries.append(.number(Int(truncatingIfNeeded: value)))
            default:
                var fields: [String: HostileArchive.Field] = [:]
                for index in 0..<Int(value >> 4 % 5) {
                    let pick = next()
                    let reference = Int(pick >> 16 % UInt64(count + 2))
                    fields[fieldNames[(index + Int(pick % 7)) % fieldNames.count]] = switch pick % 4 {
                    case 0: .references([reference, Int(pick >> 24 % UInt64(count + 1))])
                    case 1: .integer(Int(truncatingIfNeeded: pick))
                    case 2: .inlineString("x")
                    default: .reference(reference)
                    }
                }
                entries.append(.object(classRecord: Int(value >> 12 % UInt64(count + 1)), fields: fields))
            }
        }
        return HostileArchive(objects: entries, root: Int(next() % UInt64(count + 1))).data
    }

    /// Random JSON that a reader of the slot might trip on.
    static func randomJSON(_ bits: [UInt64]) -> Data {
        let value = bits.first ?? 0
        let depth = [3, 511, 513, 20_000][Int(value % 4)]
        switch value >> 2 % 4 {
        case 0: return Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
        case 1: return Data((String(repeating: "{\"secret\":", count: depth) + "1" + String(repeating: "}", count: depth)).utf8)
        case 2:
            let whole = #"{"credential_type":"RefreshToken","secret":7,"home_account_id":["x"],"environment":{},"client_id":null}"#
            return Data(whole.utf8.prefix(Int(value >> 8 % UInt64(whole.utf8.count + 1))))
        default: return Data(#"{"family_id":{"a":[1,2,{"b":null}]},"client_id":1e999,"entries":"\u0000"}"#.utf8)
        }
    }

    /// The 20,000-deep archives, built once (a megabyte each; building is what costs here).
    static let deepArchives = Dictionary(uniqueKeysWithValues: ["ADTokenCacheStoreItem", "NSDictionary"].map {
        ($0, HostileArchive.archive(.deepNesting, rootClass: $0, depth: 20_000))
    })

    /// One hostile value: a named shape (at a random depth), a random archive, either mutated,
    /// or JSON.
    static func hostileValue(_ bits: [UInt64]) -> Data {
        let pick = bits[0]
        let shapes = HostileArchive.Shape.allCases
        let rootClass = pick >> 40 % 2 == 0 ? "ADTokenCacheStoreItem" : "NSDictionary"
        let shape = shapes[Int(pick >> 8) % shapes.count]
        let depth = [2, 63, 65, 20_000][Int(pick >> 20 % 4)]
        let base: Data = switch pick % 4 {
        case 0 where depth == 20_000 && shape == .deepNesting: deepArchives[rootClass] ?? Data()
        case 0: HostileArchive.archive(shape, rootClass: rootClass, depth: depth)
        case 1: randomArchive(Array(bits.dropFirst()))
        case 2: randomJSON(Array(bits.dropFirst()))
        default: MalformedInputProperties.mutate(randomArchive(Array(bits.dropFirst(2))), Array(bits.suffix(4)))
        }
        return pick >> 30 % 3 == 0 ? MalformedInputProperties.mutate(base, Array(bits.suffix(4))) : base
    }

    static let numbers = Gen.uint64(in: 0...UInt64.max).array(of: 8...40)

    @Test("hostile values in every slot of the group, every reader, in memory and on the private keyring", arguments: [TestBackend.memory, .secretServicePerGroup])
    func hostileValuesNeverCrashAndLoseNothing(_ backend: TestBackend) throws {
        let group = try Group(backend)
        _ = try group.mail.signIn(username: Self.alice)
        var planted = Set<PrimaryKey>()
        var number = 0
        SeededProperty.check("hostile items (\(backend))", count: backend == .memory ? 1_500 : 30, input: Self.numbers) { bits in
            number += 1
            planted.insert(try group.plant(Self.hostileValue(bits), in: Int(bits[1] % 5)))
            try group.readEverything(remove: number % 25 == 0)
        }
        // Each item reported at most once, and never one the hostile app did not plant.
        let reported = group.report.items.map { PrimaryKey(group: $0.group, account: $0.account, service: $0.service) }
        #expect(Set(reported).count == reported.count)
        #expect(Set(reported).isSubset(of: planted))
        #expect(!reported.isEmpty)
    }
}
