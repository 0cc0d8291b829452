import Foundation
import Mitigations
import SharedKeychain
import Testing
import TokenCache

/// A deletion guarded delete refuses leaves no trace of a deletion: no intent, no wipe record,
/// and in the audit journal only the refusal (issue 19, finding 3: a refused `token wipe` was
/// later reported as "interrupted token wipe ... 0 of 13 removed").
@Suite("Refused deletions write nothing")
struct RefusedDeletionTests {
    static let team = "ABCDE12345"

    struct Apps {
        let store: any ItemStore
        let group: String
        let mail: TokenCache
        let calendar: TokenCache

        init(_ backend: Backend) throws {
            store = try backend.makeStore()
            group = "\(RefusedDeletionTests.team).\(UUID().uuidString.prefix(8).lowercased()).adalcache"
            let policy = MitigationPolicy(groups: [group: .all()])
            let identifier = String(group.dropFirst(RefusedDeletionTests.team.count + 1))
            let cache = { [store, group] (bundleID: String) throws -> TokenCache in
                let identity = try AppIdentity(
                    bundleID: bundleID, teamID: TeamIdentifier(RefusedDeletionTests.team), keychainAccessGroups: [AccessGroup(group)])
                let view = MitigatedStore(base: store, app: bundleID, policy: policy)
                return try TokenCache(
                    keychain: Keychain(app: identity, store: view),
                    configuration: TokenCacheConfiguration(clientID: "suite-client", keychainSharingGroup: identifier, familyID: "1"))
            }
            mail = try cache("com.contoso.mail")
            calendar = try cache("com.contoso.calendar")
        }

        func cleanUp() {
            _ = try? store.delete(matching: ItemQuery(groups: [
                group, AuditJournal.journalGroup(for: group), IntentJournal.journalGroup(for: group),
            ]))
        }
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func aRefusedWipeLeavesNoIntentNoWipeRecordAndOnlyTheRefusal(_ backend: Backend) throws {
        let apps = try Apps(backend)
        defer { apps.cleanUp() }
        try apps.mail.signIn(username: "alice@contoso.com")
        let before = try apps.store.items(matching: ItemQuery(groups: [apps.group]), limit: nil)

        let error = #expect(throws: TokenCacheError.self) { try apps.calendar.wipeCacheForAllAccounts() }
        #expect(error.map(DeleteRefusal.isRefusal) == true)

        #expect(try apps.store.items(matching: ItemQuery(groups: [apps.group]), limit: nil) == before)
        #expect(try apps.calendar.interruptedDeletions().isEmpty)
        #expect(try apps.calendar.wipeInfo() == nil)
        let journal = try AuditJournal(store: apps.store).entries(group: apps.group)
        #expect(journal.map(\.outcome) == [.refused])
        #expect(journal.map(\.app) == ["com.contoso.calendar"])
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func refusedRemoveAndWipeAccountLeaveNoIntentEither(_ backend: Backend) throws {
        let apps = try Apps(backend)
        defer { apps.cleanUp() }
        try apps.mail.signIn(username: "alice@contoso.com")

        // One client ID for the suite: Calendar's remove targets the tokens Mail wrote.
        #expect(throws: TokenCacheError.self) { try apps.calendar.remove(account: "alice@contoso.com") }
        #expect(throws: TokenCacheError.self) { try apps.calendar.wipeAccount("alice@contoso.com") }
        #expect(try apps.calendar.interruptedDeletions().isEmpty)
        #expect(try apps.calendar.wipeInfo() == nil)
        #expect(try AuditJournal(store: apps.store).entries(group: apps.group).map(\.outcome) == [.refused, .refused])
        // The account is still signed in for Mail.
        #expect(try apps.mail.accounts().map(\.username) == ["alice@contoso.com"])
    }

    @Test func anAllowedDeletionStillJournalsAndRecords() throws {
        let apps = try Apps(.memory)
        try apps.mail.signIn(username: "alice@contoso.com")
        #expect(try apps.mail.wipeCacheForAllAccounts() > 0)
        #expect(try apps.mail.interruptedDeletions().isEmpty)
        // A full wipe leaves no wipe record (the SDK deletes it with the group); the audit journal,
        // outside the group, is the emulator's record of it.
        #expect(try apps.mail.wipeInfo() == nil)
        #expect(try AuditJournal(store: apps.store).entries(group: apps.group).map(\.outcome) == [.deleted])
    }
}

/// The journal groups are reserved (issue 19, finding 4): no app may be entitled to one, so
/// no app can empty the audit journal or the interrupted-delete records.
@Suite("Reserved journal groups")
struct ReservedGroupTests {
    static let team = try! TeamIdentifier("ABCDE12345")

    @Test(arguments: [".sharedkeychain-audit", ".sharedkeychain-intents", ".SharedKeychain-Audit"])
    func noAppMayBeEntitledToAJournalGroup(_ suffix: String) throws {
        let journal = "com.microsoft.adalcache" + suffix
        #expect(throws: AccessGroupError.reservedGroup("ABCDE12345." + journal)) {
            try AccessGroup(teamID: Self.team, identifier: journal)
        }
        #expect(throws: AccessGroupError.self) { try AccessGroup("ABCDE12345." + journal) }
        let error = #expect(throws: AccessGroupError.self) {
            try AccessGroup(entitlement: "$(AppIdentifierPrefix)" + journal, teamID: Self.team)
        }
        #expect(error?.description.contains("reserved") == true)
        #expect(throws: AccessGroupError.self) { try ApplicationGroup("group.contoso" + suffix) }
        #expect(throws: AccessGroupError.self) {
            try AppIdentity(bundleID: "com.contoso" + suffix.lowercased(), teamID: Self.team)
        }
        // Entitlements from a file go through the same check.
        let entitlements = Entitlements(keychainAccessGroups: ["$(AppIdentifierPrefix)com.microsoft.adalcache", "$(AppIdentifierPrefix)" + journal])
        #expect(throws: EntitlementsError.self) {
            try AppIdentity(bundleID: "com.contoso.mail", teamID: Self.team, entitlements: entitlements, source: "mail.entitlements")
        }
    }

    @Test func theJournalsUseReservedNames() {
        #expect(AccessGroup.isReserved(AuditJournal.journalGroup(for: "ABCDE12345.com.microsoft.adalcache")))
        #expect(AccessGroup.isReserved(IntentJournal.journalGroup(for: "ABCDE12345.com.microsoft.adalcache")))
        #expect(!AccessGroup.isReserved("ABCDE12345.com.microsoft.adalcache"))
        #expect(!AccessGroup.isReserved("ABCDE12345.com.contoso.sharedkeychain-auditor"))
    }
}

/// Snapshot files are whatever their holder wrote: every field is range-checked on `restore`,
/// the error naming the field (issue 19: a type of 2^40, a version of 2^63 that an update
/// wrapped to 0, years 506713 and -4712 were accepted; a negative version read as "not valid JSON").
@Suite("Snapshot fields")
struct SnapshotFieldTests {
    static let group = "ABCDE12345.com.microsoft.adalcache"

    /// A valid snapshot's JSON with `change` applied to its first item.
    func file(_ change: (inout [String: Any]) -> Void) throws -> URL {
        let item = StoredItem(
            group: Self.group, account: "a", service: "s", provenance: Provenance(addedBy: "com.contoso.mail"), creationDate: Date(), modificationDate: Date(),
            data: Data("x".utf8))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("snapshot-\(UUID().uuidString).json")
        try GroupSnapshot(group: Self.group, takenAt: Date(), items: [item]).write(to: url)
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var items = try #require(object["items"] as? [[String: Any]])
        change(&items[0])
        object["items"] = items
        try JSONSerialization.data(withJSONObject: object).write(to: url)
        return url
    }

    static let cases: [(field: String, value: Double)] = [
        ("type", 1_099_511_627_776), ("type", -1), ("creator", 4_294_967_296), ("creator", -1), ("version", 9_223_372_036_854_775_808), ("version", -1), ("version", 0),
        // Seconds since 2001: the years 506713 and -4712.
        ("creationDate", 15_927_000_000_000.0), ("modificationDate", -211_845_000_000.0),
    ]

    @Test("a field out of range is refused naming it", arguments: cases.indices)
    func outOfRange(_ index: Int) throws {
        let (field, value) = Self.cases[index]
        let url = try file { $0[field] = value }
        defer { try? FileManager.default.removeItem(at: url) }
        let error = #expect(throws: SnapshotError.self) { try GroupSnapshot.read(from: url) }
        let message = "\(error.map { "\($0)" } ?? "")"
        #expect(message.contains(field), "\(message)")
        #expect(!message.contains("not valid JSON"), "\(message)")
    }

    /// Snapshots of the version before provenance hold the adding app's bundle ID as a string
    /// `creator`: it reads as the emulator's provenance, never as a kSecAttrCreator number;
    /// a decimal string (a caller's kSecAttrCreator, which SecItem stored as text) reads as one.
    @Test func aSnapshotOfThePreviousVersionReadsItsCreatorAsProvenance() throws {
        let bundle = try file { $0["creator"] = "com.contoso.mail"; $0["provenance"] = nil }
        defer { try? FileManager.default.removeItem(at: bundle) }
        let old = try #require(try GroupSnapshot.read(from: bundle).items.first)
        #expect(old.creator == nil)
        #expect(old.provenance == Provenance(addedBy: "com.contoso.mail"))
        let numeric = try file { $0["creator"] = "1633776748"; $0["provenance"] = nil }
        defer { try? FileManager.default.removeItem(at: numeric) }
        let coded = try #require(try GroupSnapshot.read(from: numeric).items.first)
        #expect(coded.creator == 1_633_776_748 && coded.provenance == nil)
        // The current format: a number, and the provenance apart.
        let current = try file { $0["creator"] = 42 }
        defer { try? FileManager.default.removeItem(at: current) }
        let item = try #require(try GroupSnapshot.read(from: current).items.first)
        #expect(item.creator == 42 && item.provenance?.addedBy == "com.contoso.mail")
    }

    @Test func aValidSnapshotReads() throws {
        let url = try file { $0["type"] = 4_294_967_295 }
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(try GroupSnapshot.read(from: url).items.first?.type == 4_294_967_295)
    }
}
