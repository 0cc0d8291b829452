import Foundation
import Hazards
import Mitigations
import SharedKeychain
import Testing

/// Guarded delete, the audit journal, policies and snapshots, on the keychain core directly.
@Suite("Mitigations")
struct MitigationTests {
    static let team = "ABCDE12345"
    static let group = "ABCDE12345.com.microsoft.adalcache"

    static func app(_ bundleID: String, store: any ItemStore, policy: MitigationPolicy) throws -> (Keychain, MitigatedStore) {
        let identity = try AppIdentity(
            bundleID: bundleID, teamID: TeamIdentifier(team), keychainAccessGroups: [AccessGroup(group)])
        let view = MitigatedStore(base: store, app: bundleID, policy: policy)
        return (Keychain(app: identity, store: view), view)
    }

    static let policy = MitigationPolicy(groups: [group: .all(privileged: ["com.microsoft.azureauthenticator"])])

    @Test(arguments: Backend.memoryAndKeyring)
    func guardedDeleteRefusesOtherAppsItemsAndDeletesNothing(_ backend: Backend) throws {
        let store = try backend.makeStore()
        let group = "\(Self.team).\(UUID().uuidString.prefix(8)).adalcache"
        let policy = MitigationPolicy(groups: [group: .all(privileged: ["com.microsoft.azureauthenticator"])])
        let identity = { (bundleID: String) in
            try AppIdentity(bundleID: bundleID, teamID: TeamIdentifier(Self.team), keychainAccessGroups: [AccessGroup(group)])
        }
        let mailView = MitigatedStore(base: store, app: "com.contoso.mail", policy: policy)
        let mail = Keychain(app: try identity("com.contoso.mail"), store: mailView)
        let calendarView = MitigatedStore(base: store, app: "com.contoso.calendar", policy: policy)
        let calendar = Keychain(app: try identity("com.contoso.calendar"), store: calendarView)
        defer { _ = try? store.delete(matching: ItemQuery(groups: [group, AuditJournal.journalGroup(for: group)])) }

        try mail.add(NewItem(account: "alice", service: "rt", group: group, data: Data("secret-1".utf8)))
        try mail.add(NewItem(account: "alice", service: "at", group: group, data: Data("secret-2".utf8)))
        try calendar.add(NewItem(account: "alice", service: "cal", group: group, data: Data("secret-3".utf8)))

        let error = #expect(throws: KeychainError.self) { try calendar.delete(KeychainQuery(group: group)) }
        let caught = try #require(error)
        #expect(DeleteRefusal.isRefusal(caught))
        let refusal = try #require(calendarView.refusal(for: caught))
        #expect(refusal == DeleteRefusal(app: "com.contoso.calendar", group: group, refused: 2, matched: 3,
                                         addedBy: ["com.contoso.mail": 2], privileged: ["com.microsoft.azureauthenticator"]))
        #expect(refusal.status == .missingEntitlement)
        #expect(refusal.message.contains("com.contoso.calendar") && refusal.message.contains(group) && refusal.message.contains("2 of 3 items"))
        #expect(!refusal.message.contains("secret"))
        #expect(try store.items(matching: ItemQuery(groups: [group]), limit: nil).count == 3)

        // Its own item it may delete; the creator may delete its own.
        #expect(try calendar.delete(KeychainQuery(group: group, service: "cal")) == 1)
        #expect(try mail.delete(KeychainQuery(group: group)) == 2)

        let journal = try AuditJournal(store: store).entries(group: group)
        #expect(journal.map(\.app) == ["com.contoso.calendar", "com.contoso.calendar", "com.contoso.mail"])
        #expect(journal.map(\.outcome) == [.refused, .deleted, .deleted])
        #expect(journal.map(\.itemCount) == [3, 1, 2])
        #expect(journal[0].addedBy == ["com.contoso.mail": 2, "com.contoso.calendar": 1])
        #expect(journal[0].query == "everything in group \(group)")
        #expect(journal[1].query == "service 'cal' in group \(group)")
        #expect(journal.allSatisfy { $0.operation == "delete" })
    }

    @Test func privilegedAppsAndUnlistedGroupsAreNotGuarded() throws {
        let store = InMemoryStore()
        let (mail, _) = try Self.app("com.contoso.mail", store: store, policy: Self.policy)
        let (authenticator, _) = try Self.app("com.microsoft.azureauthenticator", store: store, policy: Self.policy)
        let (calendar, _) = try Self.app("com.contoso.calendar", store: store, policy: .none)
        try mail.add(NewItem(account: "a", service: "s", group: Self.group, data: Data("x".utf8)))
        #expect(try authenticator.delete(KeychainQuery(group: Self.group)) == 1)
        try mail.add(NewItem(account: "a", service: "s", group: Self.group, data: Data("x".utf8)))
        // Calendar's view has no policy: Apple's behaviour.
        #expect(try calendar.delete(KeychainQuery(group: Self.group)) == 1)
        let journal = try AuditJournal(store: store).entries(group: Self.group)
        #expect(journal.map(\.app) == ["com.microsoft.azureauthenticator"])
    }

    @Test func policyFileRoundTripsAndExplainsMistakes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("policy.json")
        try Data(#"{"groups": {"ABCDE12345.com.microsoft.adalcache": {"mitigations": ["guarded-delete", "audit"]}}}"#.utf8).write(to: file)
        let policy = try MitigationPolicy.load(from: file)
        #expect(policy.policy(for: Self.group) == GroupPolicy(mitigations: [.audit, .guardedDelete]))
        #expect(policy.policy(for: "ABCDE12345.other") == nil)
        try Data(#"{"groups": {"G": {"mitigations": ["shred"]}}}"#.utf8).write(to: file)
        let error = #expect(throws: PolicyError.self) { try MitigationPolicy.load(from: file) }
        #expect(error?.status == .param)
        #expect(error?.message.contains("groups.G.mitigations") == true)
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func snapshotRoundTripsThroughAPrivateFile(_ backend: Backend) throws {
        let store = try backend.makeStore()
        let group = "\(Self.team).\(UUID().uuidString.prefix(8)).snap"
        defer { _ = try? store.delete(matching: ItemQuery(groups: [group])) }
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        for index in 0..<3 {
            try store.add(StoredItem(group: group, account: "acct\(index)", service: "svc", generic: Data([1, 2]), type: 2002,
                                     label: "l", provenance: Provenance(addedBy: "com.contoso.mail"), creationDate: date.addingTimeInterval(Double(index)),
                                     modificationDate: date, data: Data("secret-\(index)".utf8)))
        }
        let snapshot = try GroupSnapshot.take(of: group, from: store)
        #expect(!snapshot.description.contains("secret"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("snap.json")
        try snapshot.write(to: file)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)

        #expect(try store.delete(matching: ItemQuery(groups: [group], account: "acct1")) == 1)
        let read = try GroupSnapshot.read(from: file)
        #expect(read == snapshot)
        let result = try read.restore(into: store)
        #expect(result == RestoreResult(group: group, restored: 1, alreadyPresent: 2, addedBy: ["com.contoso.mail": 1]))
        let items = try store.items(matching: ItemQuery(groups: [group]), limit: nil)
        #expect(Set(items) == Set(snapshot.items))
    }

    @Test func snapshotFilesAreChecked() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"format": 9, "group": "G", "takenAt": 0, "items": []}"#.utf8).write(to: file)
        let error = #expect(throws: SnapshotError.self) { try GroupSnapshot.read(from: file) }
        #expect(error?.message.contains("format 9") == true)
    }

    @Test("an app under guarded delete still watches its group: a privileged wipe shows up at once", arguments: Backend.memoryAndKeyring)
    func watchThroughMitigations(_ backend: Backend) async throws {
        let store = try backend.makeStore()
        let group = "\(Self.team).\(UUID().uuidString.prefix(8)).adalcache"
        let policy = MitigationPolicy(groups: [group: .all(privileged: ["com.microsoft.azureauthenticator"])])
        let identity = { (bundleID: String) in
            try AppIdentity(bundleID: bundleID, teamID: TeamIdentifier(Self.team), keychainAccessGroups: [AccessGroup(group)])
        }
        let mail = Keychain(app: try identity("com.contoso.mail"), store: MitigatedStore(base: store, app: "com.contoso.mail", policy: policy))
        let authenticator = Keychain(
            app: try identity("com.microsoft.azureauthenticator"),
            store: MitigatedStore(base: store, app: "com.microsoft.azureauthenticator", policy: policy))
        try mail.add(NewItem(account: "alice", service: "refreshtoken-client--", data: Data("rt".utf8)))
        let watch = try mail.watch(group: group)
        defer { watch.cancel() }
        #expect(try authenticator.delete(.all(in: group)) == 1)
        let deadline = DispatchWorkItem { watch.cancel() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 20, execute: deadline)
        defer { deadline.cancel() }
        var seen: ItemEvent?
        for await event in watch.events where event.kind == .deleted {
            seen = event
            break
        }
        #expect(seen?.account == "alice")
        #expect(seen?.addedBy == "com.contoso.mail")
    }
}
