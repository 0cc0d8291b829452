import Foundation
import KeychainStorage
import Testing
@testable import SharedKeychain

/// Watching a group (``ItemWatching``), run unchanged against every storage backend.
@Suite("Item watch conformance")
struct ItemWatchConformanceTests {
    /// Two groups of a team no other test uses: one watched, one whose events must not show.
    struct Groups {
        let team: String
        let watched: String
        let other: String

        init() {
            team = Backend.uniqueTeamID()
            watched = "\(team).com.microsoft.adalcache"
            other = "\(team).com.contoso.shared"
        }
    }

    static let secret = "do-not-print-me"

    func item(_ account: String, in group: String, creator: String, data: String = secret) -> StoredItem {
        let now = Date()
        return StoredItem(
            group: group, account: account, service: "refreshtoken-client--", provenance: Provenance(addedBy: creator),
            creationDate: now, modificationDate: now, data: Data(data.utf8))
    }

    @Test(arguments: Backend.allCases)
    func reportsAddUpdateDeleteAndWipeOfTheWatchedGroupOnly(_ backend: Backend) async throws {
        let store = try #require(try backend.makeStore() as? any ItemWatching)
        let groups = Groups()
        try store.add(item("before", in: groups.watched, creator: "com.contoso.mail"))
        try store.add(item("elsewhere", in: groups.other, creator: "com.contoso.mail"))

        let started = Date()
        let watch = try store.watch(groups: [groups.watched])
        defer { watch.cancel() }
        #expect(watch.groups == [groups.watched])
        #expect(watch.initialItemCount == 1)

        let calendar = "com.contoso.calendar"
        try store.add(item("alice", in: groups.watched, creator: calendar))
        try store.add(item("alice", in: groups.other, creator: calendar))
        let alice = ItemQuery(groups: [groups.watched], account: "alice")
        #expect(try store.update(matching: alice, with: ItemChange(data: Data("rotated".utf8)), at: Date()) == 1)
        #expect(try store.update(
            matching: ItemQuery(groups: [groups.other], account: "alice"), with: ItemChange(data: Data()), at: Date()) == 1)
        try store.add(item("bob", in: groups.watched, creator: calendar))
        #expect(try store.delete(matching: ItemQuery(groups: [groups.watched], account: "bob")) == 1)
        // The wipe: every item of the group in one delete (one collection delete per group).
        let wiped = try store.delete(matching: ItemQuery(groups: [groups.watched]))
        #expect(wiped == 2)
        let wipedOther = try store.delete(matching: ItemQuery(groups: [groups.other]))
        #expect(wipedOther == 2)
        // Events arrive in order: nothing of the other group may come before this one.
        try store.add(item("sentinel", in: groups.watched, creator: calendar))

        let events = await collect(watch, until: { $0.account == "sentinel" })
        var summary = events.map { "\($0.kind.rawValue) \($0.account) \($0.addedBy ?? "-")" }
        // The Secret Service's signals carry only an item's path: the watcher reads a created
        // item's attributes when the signal arrives, so bob, deleted right away, is named only
        // when the watcher got there first (on a busy machine it may not): both of its events,
        // or neither.
        let bobEvents = ["created bob \(calendar)", "deleted bob \(calendar)"]
        // Memory publishes as it changes: nothing can be missed there.
        #expect(backend != .memory || summary.count == 7, "got \(events)")
        if summary.count == 7 {
            #expect(Array(summary[2...3]) == bobEvents)
            summary.removeSubrange(2...3)
        }
        try #require(summary.count == 5, "got \(events)")
        #expect(Array(summary.prefix(2)) == ["created alice \(calendar)", "changed alice \(calendar)"])
        // A wipe reports every item it deleted, the one created before the watch too.
        #expect(Set(summary[2...3]) == ["deleted before com.contoso.mail", "deleted alice \(calendar)"])
        #expect(summary[4] == "created sentinel \(calendar)")
        #expect(events.allSatisfy { $0.group == groups.watched && $0.service == "refreshtoken-client--" })
        #expect(events.allSatisfy { $0.time >= started.addingTimeInterval(-1) && $0.time <= Date() })
        #expect(!events.map(String.init(describing:)).joined().contains(Self.secret))

        // Cancelling ends the stream: what was buffered still comes, then the end.
        watch.cancel()
        #expect(watch.isCancelled)
        try store.add(item("after", in: groups.watched, creator: calendar))
        let clock = ContinuousClock()
        let cancelled = clock.now
        let rest = await collect(watch, count: .max, within: 30)
        #expect(clock.now - cancelled < .seconds(15), "the stream did not end on cancel")
        #expect(rest.isEmpty, "\(rest)")
        #expect(!rest.contains { $0.account == "after" })
    }

    @Test(arguments: Backend.allCases)
    func watchingNeedsTheEntitlementAndCoversEveryGroupOfTheApp(_ backend: Backend) async throws {
        let suite = try KeychainConformanceTests.Suite(Target(backend: backend, api: .swift))
        let notes = try #require(suite.notes as? Keychain)
        let calendar = try #require(suite.calendar as? Keychain)
        // Notes is not entitled to the shared group: errSecMissingEntitlement, as for a read.
        let refused = #expect(throws: KeychainError.self) { try notes.watch(group: suite.shared) }
        #expect(refused?.status == .missingEntitlement)
        #expect(refused?.status.rawValue == -34018)
        #expect(throws: KeychainError.self) { try notes.watch(group: "") }

        // Without a group, calendar watches all its groups: the shared one and its app ID.
        let watch = try calendar.watch()
        defer { watch.cancel() }
        #expect(watch.groups == suite.calendar.app.accessGroups.map(\.rawValue))
        try suite.mail.add(NewItem(account: "alice", service: "s", group: suite.extra, data: Data("x".utf8)))
        try suite.mail.add(NewItem(account: "alice", service: "s", data: Data("x".utf8)))
        let events = await collect(watch, count: 1)
        #expect(events.map(\.group) == [suite.shared])
        #expect(events.first?.addedBy == "com.contoso.mail")

        // The build variable is expanded like everywhere else.
        let expanded = try calendar.watch(group: "$(AppIdentifierPrefix)com.microsoft.adalcache")
        defer { expanded.cancel() }
        #expect(expanded.groups == [suite.shared])
        #expect(expanded.initialItemCount == 1)
    }

    @Test func aStoreThatCannotBeWatchedIsErrSecParam() throws {
        let app = try AppIdentity(bundleID: "com.contoso.mail", teamID: TeamIdentifier(Backend.uniqueTeamID()))
        let keychain = Keychain(app: app, store: UnwatchableStore())
        let error = #expect(throws: KeychainError.self) { try keychain.watch() }
        #expect(error?.status == .param)
        #expect(error?.message.contains("cannot be watched") == true)
    }

    /// Up to `count` events, waiting at most `seconds` in all: at the deadline the watch is
    /// cancelled, which ends the stream, so a missing event fails the test instead of hanging it.
    func collect(_ watch: ItemWatch, count: Int, within seconds: Double = 20) async -> [ItemEvent] {
        var events = 0
        return await collect(watch, within: seconds) { _ in
            events += 1
            return events == count
        }
    }

    /// Events until one satisfies `last` (included), or the deadline.
    func collect(_ watch: ItemWatch, within seconds: Double = 20, until last: (ItemEvent) -> Bool) async -> [ItemEvent] {
        // The bound: the watch is cancelled at the deadline, which ends the stream.
        let deadline = DispatchWorkItem { watch.cancel() }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: deadline)
        defer { deadline.cancel() }
        var events: [ItemEvent] = []
        for await event in watch.events {
            events.append(event)
            if last(event) { break }
        }
        return events
    }
}

/// A store that keeps nothing and cannot be watched.
private struct UnwatchableStore: ItemStore {
    let name = "unwatchable"
    let userAuthentication: AuthenticationProvider? = nil
    func add(_ item: StoredItem) {}
    func items(matching query: ItemQuery, limit: Int?) -> [StoredItem] { [] }
    func update(matching query: ItemQuery, with change: ItemChange, at date: Date) -> Int { 0 }
    func delete(matching query: ItemQuery) -> Int { 0 }
}
