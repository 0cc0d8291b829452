import Foundation
import Testing
@testable import SharedKeychain

/// Keychain Services semantics, run unchanged against every storage backend, through the Swift
/// API and through Apple's SecItem functions (``Target``).
@Suite("Keychain conformance")
struct KeychainConformanceTests {
    /// Three apps of one team, like a suite: mail and calendar share the MSAL group; notes is
    /// not entitled to it. Each test gets its own team ID, so tests never see each other's items.
    struct Suite {
        let team: TeamIdentifier
        let mail: any KeychainAPI
        let calendar: any KeychainAPI
        let notes: any KeychainAPI
        let shared: String
        let extra: String

        init(_ target: Target) throws {
            team = try TeamIdentifier(Backend.uniqueTeamID())
            let store = try target.backend.makeStore()
            let api = target.api
            let cache = "$(AppIdentifierPrefix)com.microsoft.adalcache"
            let contoso = "$(AppIdentifierPrefix)com.contoso.shared"
            shared = "\(team.rawValue).com.microsoft.adalcache"
            extra = "\(team.rawValue).com.contoso.shared"
            mail = api.client(app: try AppIdentity(bundleID: "com.contoso.mail", teamID: team,
                                                    entitlements: Entitlements(keychainAccessGroups: [cache, contoso]), source: "mail"), store: store)
            calendar = api.client(app: try AppIdentity(bundleID: "com.contoso.calendar", teamID: team,
                                                        entitlements: Entitlements(keychainAccessGroups: [cache]), source: "calendar"), store: store)
            notes = api.client(app: try AppIdentity(bundleID: "com.contoso.notes", teamID: team), store: store)
        }
    }

    func token(_ account: String = "alice", service: String = "refreshtoken-client--", group: String? = nil, data: String = "secret-1") -> NewItem {
        NewItem(account: account, service: service, group: group, data: Data(data.utf8))
    }

    @Test(arguments: Target.all)
    func addWithoutGroupGoesToFirstGroupAndIsSharedWithSiblings(_ target: Target) throws {
        let suite = try Suite(target)
        let added = try suite.mail.add(token())
        #expect(added.group == suite.shared)
        let seen = try suite.calendar.first(KeychainQuery(account: "alice"))
        #expect(seen.data == Data("secret-1".utf8))
        #expect(seen.group == suite.shared)
        // No creator unless the caller sets one, as on a device; who added it is the
        // emulator's record, which the Swift API returns and SecItem never does.
        #expect(added.creator == nil && seen.creator == nil)
        #expect(seen.provenance == (target.api == .swift ? Provenance(addedBy: "com.contoso.mail") : nil))
    }

    /// `kSecAttrCreator` and `kSecAttrType` are the caller's unsigned 32-bit numbers: kept,
    /// returned, matched and updated as given, the largest included.
    @Test(arguments: Target.all)
    func creatorAndTypeAreTheCallersNumbers(_ target: Target) throws {
        let suite = try Suite(target)
        var coded = token("alice")
        coded.creator = 0x6161_706C
        coded.type = UInt32.max
        try suite.mail.add(coded)
        try suite.mail.add(token("bob"))
        let alice = try suite.calendar.first(KeychainQuery(account: "alice"))
        #expect(alice.creator == 0x6161_706C && alice.type == UInt32.max)
        #expect(try suite.calendar.first(KeychainQuery(account: "bob")).creator == nil)
        let byCreator = try suite.calendar.copyMatching(KeychainQuery(filters: .init(creator: 0x6161_706C)), limit: .all)
        #expect(byCreator.map(\.account) == ["alice"])
        #expect(try suite.calendar.copyMatching(KeychainQuery(type: UInt32.max), limit: .all).map(\.account) == ["alice"])
        #expect(try suite.calendar.update(KeychainQuery(account: "bob"), with: ItemChange(creator: 7)) == 1)
        #expect(try suite.mail.copyMatching(KeychainQuery(filters: .init(creator: 7)), limit: .all).map(\.account) == ["bob"])
    }

    @Test("a numeric match limit returns at most that many, oldest first", arguments: Target.all)
    func numericMatchLimit(_ target: Target) throws {
        let suite = try Suite(target)
        for index in 0..<3 { try suite.mail.add(token("user\(index)", data: "d\(index)")) }
        #expect(try suite.mail.copyMatching(KeychainQuery(service: "refreshtoken-client--"), limit: .count(2)).map(\.account) == ["user0", "user1"])
        #expect(try suite.mail.copyMatching(KeychainQuery(service: "refreshtoken-client--"), limit: .count(5)).count == 3)
        #expect(try suite.mail.copyMatching(KeychainQuery(account: "user2"), limit: .count(2)).map(\.data) == [Data("d2".utf8)])
    }

    /// Found by the operation-sequence property: with a match limit, the oldest match across
    /// ALL the app's groups comes first, even when a newer one sits in an earlier group.
    @Test(arguments: Target.all)
    func firstMatchAcrossGroupsIsTheOldestWhateverTheGroupOrder(_ target: Target) throws {
        let suite = try Suite(target)
        try suite.mail.add(token(group: suite.extra, data: "older, in the second group"))
        try suite.calendar.add(token(group: suite.shared, data: "newer, in the first group"))
        let first = try suite.mail.first(KeychainQuery(account: "alice"))
        #expect(first.data == Data("older, in the second group".utf8))
        #expect(try suite.mail.copyMatching(KeychainQuery(account: "alice"), limit: .all).map(\.group) == [suite.extra, suite.shared])
    }

    /// App groups are access groups after the keychain groups and the app ID: reachable by name,
    /// spanned by queries without a group, closed to apps outside them.
    @Test(arguments: Target.all)
    func appGroupsAreAccessGroupsAfterTheKeychainGroupsAndTheAppID(_ target: Target) throws {
        let team = try TeamIdentifier(Backend.uniqueTeamID())
        let store = try target.backend.makeStore()
        let appGroup = "group.com.contoso.\(team.rawValue.lowercased())"
        let shared = try AccessGroup(teamID: team, identifier: "com.microsoft.adalcache")
        let widget = target.api.client(app: try AppIdentity(
            bundleID: "com.contoso.mail.widget", teamID: team, applicationGroups: [ApplicationGroup(appGroup)]), store: store)
        let mail = target.api.client(app: try AppIdentity(
            bundleID: "com.contoso.mail", teamID: team, keychainAccessGroups: [shared], applicationGroups: [ApplicationGroup(appGroup)]),
            store: store)
        let notes = target.api.client(app: try AppIdentity(bundleID: "com.contoso.notes", teamID: team), store: store)
        #expect(mail.app.accessGroupNames == [shared.rawValue, "\(team.rawValue).com.contoso.mail", appGroup])

        // No group: the first keychain group, never an app group.
        #expect(try mail.add(token("alice")).group == shared.rawValue)
        // Named: the app group, which the widget (no keychain groups at all) shares.
        #expect(try widget.add(token("bob", group: appGroup)).group == appGroup)
        #expect(try mail.first(KeychainQuery(account: "bob")).group == appGroup)
        #expect(try mail.copyAll(KeychainQuery()).map(\.group) == [shared.rawValue, appGroup])
        let refused = #expect(throws: KeychainError.self) { try notes.first(KeychainQuery(group: appGroup, account: "bob")) }
        #expect(refused?.status == .missingEntitlement)
        // An ungrouped delete spans the app group too.
        #expect(try mail.delete(KeychainQuery(service: "refreshtoken-client--")) == 2)
        #expect(throws: KeychainError.self) { try widget.first(KeychainQuery(account: "bob")) }
    }

    /// Versions and compare-and-swap are the project's own: the Swift API only.
    @Test(arguments: Backend.allCases)
    func versionsCountWritesAndConditionalUpdatesAreCompareAndSwap(_ backend: Backend) throws {
        let suite = try Suite(Target(backend: backend, api: .swift))
        let added = try suite.mail.add(token())
        #expect(added.version == 1)
        let query = KeychainQuery(account: "alice")
        try suite.calendar.update(query, with: ItemChange(data: Data("secret-2".utf8), ifVersion: 1))
        #expect(try suite.mail.first(query).version == 2)
        // A writer that read version 1 lost the race: refused, nothing changed.
        let conflict = #expect(throws: KeychainError.self) {
            try suite.mail.update(query, with: ItemChange(data: Data("stale".utf8), ifVersion: 1))
        }
        #expect(conflict?.status == .versionConflict)
        #expect(conflict?.status.rawValue == -99001)
        let after = try suite.mail.first(query)
        #expect(after.data == Data("secret-2".utf8))
        #expect(after.version == 2)
        // Plain updates stay as Apple has them: unconditional, and they count too.
        try suite.mail.update(query, with: ItemChange(label: "relabelled"))
        #expect(try suite.mail.first(query).version == 3)
    }

    @Test(arguments: Target.all)
    func appWithoutEntitlementCannotReachTheGroup(_ target: Target) throws {
        let suite = try Suite(target)
        try suite.mail.add(token())
        let shared = suite.shared
        let refusals: [KeychainError?] = [
            #expect(throws: KeychainError.self) { try suite.notes.copyMatching(KeychainQuery(group: shared)) },
            #expect(throws: KeychainError.self) { try suite.notes.add(self.token(group: shared)) },
            #expect(throws: KeychainError.self) { try suite.notes.update(KeychainQuery(group: shared), with: ItemChange(data: Data())) },
            #expect(throws: KeychainError.self) { try suite.notes.delete(KeychainQuery(group: shared)) },
        ]
        #expect(refusals.map { $0?.status } == Array(repeating: .missingEntitlement, count: 4))
        #expect(KeychainStatus.missingEntitlement.rawValue == -34018)
        // Without a group, notes searches only its own groups: nothing there.
        let notFound = #expect(throws: KeychainError.self) { try suite.notes.copyMatching(KeychainQuery(account: "alice")) }
        #expect(notFound?.status == .itemNotFound)
        if target.api == .swift { #expect(notFound == .itemNotFound(query: "account 'alice', in any of the app's groups")) }
        #expect(try suite.calendar.first(KeychainQuery(account: "alice")).data == Data("secret-1".utf8))
    }

    @Test(arguments: Target.all)
    func emptyGroupIsMissingEntitlement(_ target: Target) throws {
        let suite = try Suite(target)
        let error = #expect(throws: KeychainError.self) { try suite.mail.add(token(group: "")) }
        #expect(error?.status == .missingEntitlement)
    }

    @Test(arguments: Target.all)
    func primaryKeyIsAccountServiceAndGroup(_ target: Target) throws {
        let suite = try Suite(target)
        try suite.mail.add(token())
        // Generic, type and label are not part of the key.
        var again = token(data: "secret-2")
        again.generic = Data("other".utf8)
        again.type = 2002
        again.label = "another label"
        let error = #expect(throws: KeychainError.self) { try suite.mail.add(again) }
        #expect(error?.status == .duplicateItem)
        #expect(error?.status.rawValue == -25299)
        // Another app in the group collides too: the key has no app in it.
        #expect(throws: KeychainError.self) { try suite.calendar.add(self.token()) }
        // Same account and service in another group is another item.
        try suite.mail.add(token(group: suite.extra, data: "secret-2"))
        try suite.mail.add(token(service: "idtoken-client-realm-"))
        #expect(try suite.mail.copyMatching(KeychainQuery(account: "alice"), limit: .all).count == 3)
        // The first add's value survived the refused ones.
        #expect(try suite.mail.first(KeychainQuery(group: suite.shared, account: "alice", service: "refreshtoken-client--")).data == Data("secret-1".utf8))
    }

    @Test(arguments: Target.all)
    func copyMatchingHonoursMatchLimitAndOrder(_ target: Target) throws {
        let suite = try Suite(target)
        for index in 0..<5 {
            try suite.mail.add(token("user\(index)", group: index.isMultiple(of: 2) ? suite.shared : suite.extra, data: "v\(index)"))
        }
        let one = try suite.mail.copyMatching(KeychainQuery(service: "refreshtoken-client--"))
        #expect(one.count == 1)
        let all = try suite.mail.copyMatching(KeychainQuery(service: "refreshtoken-client--"), limit: .all)
        #expect(all.map(\.account) == ["user0", "user1", "user2", "user3", "user4"])
        #expect(one.first?.account == "user0")
        let inExtra = try suite.mail.copyMatching(KeychainQuery(group: suite.extra), limit: .all)
        #expect(inExtra.map(\.account) == ["user1", "user3"])
        // Calendar is entitled only to the shared group, so it sees three of them.
        #expect(try suite.calendar.copyMatching(.all(), limit: .all).map(\.account) == ["user0", "user2", "user4"])
    }

    @Test(arguments: Target.all)
    func matchesOnGenericAndType(_ target: Target) throws {
        let suite = try Suite(target)
        var accessToken = token(service: "accesstoken-c-r-t")
        accessToken.generic = Data("accesstoken-c-r".utf8)
        accessToken.type = 2001
        var refreshToken = token(service: "refreshtoken-c--")
        refreshToken.generic = Data("refreshtoken-c-".utf8)
        refreshToken.type = 2002
        try suite.mail.add(accessToken)
        try suite.mail.add(refreshToken)
        #expect(try suite.mail.copyMatching(KeychainQuery(type: 2002), limit: .all).map(\.service) == ["refreshtoken-c--"])
        #expect(try suite.mail.copyMatching(KeychainQuery(generic: Data("accesstoken-c-r".utf8)), limit: .all).map(\.type) == [2001])
        #expect(throws: KeychainError.self) { try suite.mail.copyMatching(KeychainQuery(type: 3001)) }
    }

    @Test(arguments: Target.all)
    func dataIsBinarySafe(_ target: Target) throws {
        let suite = try Suite(target)
        let bytes = Data((0...255).map { UInt8($0) } + [0, 0, 10, 13])
        try suite.mail.add(NewItem(account: "bin", service: "bytes", generic: Data([0, 255, 1]), data: bytes))
        let item = try suite.calendar.first(KeychainQuery(account: "bin"))
        #expect(item.data == bytes)
        #expect(item.generic == Data([0, 255, 1]))
        try suite.mail.add(NewItem(account: "empty", service: "bytes", data: Data()))
        #expect(try suite.mail.first(KeychainQuery(account: "empty")).data.isEmpty)
    }

    @Test(arguments: Target.all)
    func updateChangesDataAndKeepsCreationDate(_ target: Target) throws {
        let suite = try Suite(target)
        let added = try suite.mail.add(token())
        let count = try suite.calendar.update(KeychainQuery(account: "alice"), with: ItemChange(label: "rotated", data: Data("secret-2".utf8)))
        #expect(count == 1)
        let updated = try suite.mail.first(KeychainQuery(account: "alice"))
        #expect(updated.data == Data("secret-2".utf8))
        #expect(updated.label == "rotated")
        #expect(updated.creationDate == added.creationDate)
        #expect(updated.modificationDate >= added.modificationDate)
        #expect(updated.creator == nil)
        // The emulator records who added and who last modified it (not through SecItem).
        #expect(updated.provenance == (target.api == .swift ? Provenance(addedBy: "com.contoso.mail", modifiedBy: "com.contoso.calendar") : nil))
    }

    @Test(arguments: Target.all)
    func updateThatWouldDuplicateAKeyChangesNothing(_ target: Target) throws {
        let suite = try Suite(target)
        try suite.mail.add(token("alice"))
        try suite.mail.add(token("bob", data: "bob-secret"))
        let error = #expect(throws: KeychainError.self) {
            try suite.mail.update(KeychainQuery(account: "bob"), with: ItemChange(account: "alice"))
        }
        #expect(error?.status == .duplicateItem)
        #expect(try suite.mail.first(KeychainQuery(account: "bob")).data == Data("bob-secret".utf8))
        // Two items renamed onto one key is refused too.
        #expect(throws: KeychainError.self) { try suite.mail.update(KeychainQuery(service: "refreshtoken-client--"), with: ItemChange(account: "carol")) }
        #expect(try suite.mail.copyMatching(.all(), limit: .all).map(\.account).sorted() == ["alice", "bob"])
        // A rename to a free key works and keeps the data.
        try suite.mail.update(KeychainQuery(account: "bob"), with: ItemChange(account: "carol"))
        #expect(try suite.mail.first(KeychainQuery(account: "carol")).data == Data("bob-secret".utf8))
        #expect(throws: KeychainError.self) { try suite.mail.first(KeychainQuery(account: "bob")) }
    }

    @Test(arguments: Target.all)
    func updateStatuses(_ target: Target) throws {
        let suite = try Suite(target)
        let empty = #expect(throws: KeychainError.self) { try suite.mail.update(KeychainQuery(account: "alice"), with: ItemChange()) }
        #expect(empty?.status == .param)
        if target.api == .swift { #expect(empty == .invalidParameter("an update must set at least one attribute or the data")) }
        let error = #expect(throws: KeychainError.self) { try suite.mail.update(KeychainQuery(account: "nobody"), with: ItemChange(data: Data())) }
        #expect(error?.status == .itemNotFound)
        #expect(error?.status.rawValue == -25300)
    }

    @Test(arguments: Target.all)
    func ungroupedDeleteEmptiesEveryGroupTheAppReaches(_ target: Target) throws {
        let suite = try Suite(target)
        try suite.mail.add(token("alice", group: suite.shared))
        try suite.mail.add(token("alice", group: suite.extra))
        try suite.mail.add(token("bob", group: suite.shared))
        try suite.notes.add(token("alice"))
        // Calendar reaches only the shared group.
        #expect(try suite.calendar.delete(KeychainQuery(account: "alice")) == 1)
        #expect(try suite.mail.copyMatching(KeychainQuery(account: "alice"), limit: .all).map(\.group) == [suite.extra])
        // Mail's ungrouped delete of everything takes both of its groups, and nothing of notes'.
        #expect(try suite.mail.delete(.all()) == 2)
        #expect(throws: KeychainError.self) { try suite.mail.copyMatching(.all()) }
        #expect(try suite.notes.first(.all()).group == "\(suite.team.rawValue).com.contoso.notes")
        let again = #expect(throws: KeychainError.self) { try suite.mail.delete(.all()) }
        #expect(again?.status == .itemNotFound)
    }

    @Test(arguments: Target.all)
    func anyEntitledAppMayWipeTheWholeGroup(_ target: Target) throws {
        let suite = try Suite(target)
        for index in 0..<20 { try suite.mail.add(token("user\(index)", data: "s\(index)")) }
        try suite.mail.add(token(group: suite.extra))
        // The hazard: calendar did not write these, and deletes all of them anyway.
        #expect(try suite.calendar.delete(KeychainQuery(group: suite.shared)) == 20)
        #expect(throws: KeychainError.self) { try suite.mail.copyMatching(KeychainQuery(group: suite.shared)) }
        #expect(try suite.mail.copyMatching(KeychainQuery(group: suite.extra), limit: .all).count == 1)
        // The group works again afterwards.
        try suite.mail.add(token())
        #expect(try suite.calendar.copyMatching(.all(), limit: .all).count == 1)
    }

    @Test(arguments: Target.all)
    func groupsOfAnotherTeamAreOutOfReach(_ target: Target) throws {
        let suite = try Suite(target)
        try suite.mail.add(token())
        // A rival team with a group of the same identifier sees nothing of ours.
        let rivalTeam = try TeamIdentifier(Backend.uniqueTeamID())
        let rival = target.api.client(app: try AppIdentity(bundleID: "com.rival.app", teamID: rivalTeam,
                                                   entitlements: Entitlements(keychainAccessGroups: ["$(AppIdentifierPrefix)com.microsoft.adalcache"]), source: "rival"),
                             store: suite.mail.store)
        #expect(throws: KeychainError.self) { try rival.copyMatching(.all()) }
        let error = #expect(throws: KeychainError.self) { try rival.delete(KeychainQuery(group: suite.shared)) }
        #expect(error?.status == .missingEntitlement)
        #expect(try suite.mail.first(.all()).account == "alice")
    }

    @Test(arguments: Target.all)
    func concurrentAddsOfOneKeyLetExactlyOneWin(_ target: Target) async throws {
        let suite = try Suite(target)
        let apps = [suite.mail, suite.calendar]
        let outcomes = await withTaskGroup(of: KeychainStatus.self) { group in
            for index in 0..<16 {
                let app = apps[index % 2]
                group.addTask {
                    do {
                        try app.add(NewItem(account: "race", service: "s", data: Data("\(index)".utf8)))
                        return .success
                    } catch let error as KeychainError { return error.status } catch { return .io }
                }
            }
            return await group.reduce(into: [KeychainStatus]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == .success }.count == 1)
        #expect(outcomes.filter { $0 == .duplicateItem }.count == 15)
        #expect(try suite.mail.copyMatching(KeychainQuery(account: "race"), limit: .all).count == 1)
    }

    @Test(arguments: Target.all)
    func groupSpelledWithTheBuildVariableIsExpanded(_ target: Target) throws {
        let suite = try Suite(target)
        try suite.mail.add(token(group: "$(AppIdentifierPrefix)com.contoso.shared"))
        #expect(try suite.mail.first(KeychainQuery(group: suite.extra)).account == "alice")
    }

    @Test("every attribute is kept, updated and matched", arguments: Target.all)
    func everyAttributeIsKeptUpdatedAndMatched(_ target: Target) throws {
        let suite = try Suite(target)
        var new = token()
        new.generic = Data("g".utf8)
        new.type = 2002
        new.label = "Refresh token"
        new.comment = "for the suite"
        new.itemDescription = "MSAL token"
        new.accessibility = .afterFirstUnlock
        try suite.mail.add(new)
        try suite.mail.add(token("bob"))
        let read = try suite.calendar.first(KeychainQuery(account: "alice"))
        #expect([read.label, read.comment, read.itemDescription] == ["Refresh token", "for the suite", "MSAL token"])
        #expect(read.accessibility == .afterFirstUnlock)
        #expect(read.generic == Data("g".utf8) && read.type == 2002)
        // Label, comment, description and class select items; a mismatch finds nothing.
        for filters in [ItemQuery.Filters(label: "Refresh token"), ItemQuery.Filters(comment: "for the suite"),
                        ItemQuery.Filters(itemDescription: "MSAL token"), ItemQuery.Filters(accessibility: .afterFirstUnlock)] {
            #expect(try suite.mail.copyMatching(KeychainQuery(filters: filters), limit: .all).map(\.account) == ["alice"])
        }
        let none = #expect(throws: KeychainError.self) { try suite.mail.copyMatching(KeychainQuery(filters: ItemQuery.Filters(label: "other"))) }
        #expect(none?.status == .itemNotFound)
        // A filtered delete takes only what the filter selects, never the whole group.
        #expect(throws: KeychainError.self) { try suite.mail.delete(KeychainQuery(group: suite.shared, filters: ItemQuery.Filters(comment: "none"))) }
        #expect(try suite.mail.copyAll(.all()).count == 2)
        // Every attribute can be changed, the class too.
        try suite.mail.update(
            KeychainQuery(account: "alice"),
            with: ItemChange(label: "RT", comment: "rotated", itemDescription: "token", accessibility: .always))
        let changed = try suite.mail.first(KeychainQuery(account: "alice"))
        #expect([changed.label, changed.comment, changed.itemDescription] == ["RT", "rotated", "token"])
        #expect(changed.accessibility == .always)
        #expect(changed.data == Data("secret-1".utf8))
        #expect(try suite.mail.copyAll(KeychainQuery(filters: ItemQuery.Filters(accessibility: .afterFirstUnlock))).isEmpty)
        #expect(try suite.mail.copyAll(KeychainQuery(filters: ItemQuery.Filters(accessibility: .always))).map(\.account) == ["alice"])
    }
}
