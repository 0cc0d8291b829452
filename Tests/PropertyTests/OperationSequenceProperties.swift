import Foundation
import KeychainTestSupport
import PropertyBased
import SharedKeychain
import Synchronization
import Testing

/// Random sequences of add, get, update (plain, compare-and-swap, and of the synchronizable flag,
/// which is part of the primary key), delete, list and wipe by random apps over random groups,
/// local and synchronizable items, accounts given as text or as Data (non-UTF-8 bytes included), run against each backend and against the in-memory store as
/// the model: every call must give the same status and result, the final contents must be the
/// same, and no app may ever reach a group it is not entitled to.
@Suite("Properties: operation sequences against the in-memory model", .serialized)
struct OperationSequenceProperties {
    /// One generated call, decoded from a random number so sequences shrink and print simply.
    struct Operation: CustomStringConvertible, Sendable {
        enum Kind: Int, CaseIterable { case add, get, update, swap, delete, list, wipe, flip }
        let app: Int
        let kind: Kind
        /// nil: no group (all the app's groups); else an index into ``Fixture/groups``.
        let group: Int?
        let account: Int?
        let service: Int?
        let byte: UInt8
        let version: UInt64
        /// The synchronizable flag: of a new item, or to match (nil: `kSecAttrSynchronizableAny`).
        let synchronizable: Bool?
        /// Whether the account is given as Data (account 3 always is: bytes that are no UTF-8).
        let accountIsData: Bool

        init(_ bits: UInt64) {
            app = Int(bits % 3)
            kind = Kind(rawValue: Int((bits >> 2) % UInt64(Kind.allCases.count))) ?? .get
            let group = Int((bits >> 6) % 6)
            self.group = group >= 4 ? nil : group
            let account = Int((bits >> 9) % 5)
            self.account = account == 4 ? nil : account
            let service = Int((bits >> 12) % 3)
            self.service = service == 2 ? nil : service
            byte = UInt8(truncatingIfNeeded: bits >> 16)
            version = 1 + (bits >> 24) % 3
            let flag = (bits >> 27) % 3
            synchronizable = flag == 2 ? nil : flag == 1
            accountIsData = account == 3 || (bits >> 29) % 2 == 1
        }

        /// The account as given: `acct0`..`acct2` as text or as its UTF-8 bytes, account 3 as
        /// bytes that are no UTF-8.
        var accountValue: AttributeValue? {
            guard let account else { return nil }
            if account == 3 { return .data(Data([0xFF, 0x00, 0xFE])) }
            return accountIsData ? .data(Data("acct\(account)".utf8)) : .string("acct\(account)")
        }

        var description: String {
            "app\(app) \(kind) group:\(group.map(String.init) ?? "-") account:\(account.map(String.init) ?? "-")\(accountIsData ? "(data)" : "") service:\(service.map(String.init) ?? "-") sync:\(synchronizable.map(String.init) ?? "any") v\(version)"
        }
    }

    /// Three apps of one team: 0 is entitled to the shared and the extra group, 1 to the shared
    /// one, 2 to none (its app ID only). Group 3 belongs to another team: nobody reaches it.
    struct Fixture {
        let team: String
        let groups: [String]
        let keychains: [Keychain]

        init(store: any ItemStore, team: String) throws {
            try self.init(stores: [store], team: team)
        }

        /// App `i` works through `stores[i % stores.count]`: with two stores of one keyring, as
        /// apps in two processes do, each store's own knowledge (the items it keeps while the
        /// group's version stands, the paths it last saw) meets the other's changes.
        init(stores: [any ItemStore], team: String) throws {
            self.team = team
            let teamID = try TeamIdentifier(team)
            groups = ["\(team).com.microsoft.adalcache", "\(team).com.contoso.shared", "\(team).com.contoso.app0", "OTHERTEAM1.com.contoso.x"]
            let clock = Atomic<Int>(0)
            let now: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_700_000_000 + Double(clock.add(1, ordering: .relaxed).newValue)) }
            let entitlements = [[groups[0], groups[1]], [groups[0]], []]
            keychains = try (0..<3).map { index in
                let app = try AppIdentity(bundleID: "com.contoso.app\(index)", teamID: teamID,
                                          keychainAccessGroups: entitlements[index].map { try AccessGroup($0) })
                return Keychain(app: app, store: stores[index % stores.count], now: now)
            }
        }

        /// What one call gave: a status and, on success, a result that must match too.
        func perform(_ operation: Operation) -> String {
            let keychain = keychains[operation.app]
            let group = operation.group.map { groups[$0] }
            let query = KeychainQuery(group: group, account: operation.accountValue?.key, service: operation.service.map { "svc\($0)" },
                                      filters: ItemQuery.Filters(synchronizable: operation.synchronizable))
            let data = Data([operation.byte])
            do throws(KeychainError) {
                switch operation.kind {
                case .add:
                    var new = NewItem(account: operation.accountValue ?? .string("acct0"), service: .string("svc\(operation.service ?? 0)"),
                                      group: group, data: data)
                    new.synchronizable = operation.synchronizable ?? false
                    let item = try keychain.add(new)
                    return "ok \(item.group)"
                case .get:
                    let item = try keychain.first(query)
                    return "ok \(Self.describe(item))"
                case .update:
                    return "ok \(try keychain.update(query, with: ItemChange(data: data)))"
                case .swap:
                    return "ok \(try keychain.update(query, with: ItemChange(data: data, ifVersion: operation.version)))"
                case .delete:
                    return "ok \(try keychain.delete(query))"
                case .list:
                    return "ok " + (try keychain.copyAll(query, returningData: true)).map(Self.describe).joined(separator: ",")
                case .wipe:
                    return "ok \(try keychain.delete(KeychainQuery(group: group)))"
                case .flip:
                    // A new primary key: refused when the twin exists.
                    return "ok \(try keychain.update(query, with: ItemChange(synchronizable: !(operation.synchronizable ?? false))))"
                }
            } catch {
                return "status \(error.status.rawValue)"
            }
        }

        /// Every item of the fixture's groups, as comparable text.
        func contents(of store: any ItemStore) throws -> [String] {
            try store.items(matching: ItemQuery(groups: groups), limit: nil).map { "\(Self.describe($0)) by \($0.provenance?.addedBy ?? "-")" }.sorted()
        }

        static func describe(_ item: KeychainItem) -> String {
            "\(item.group)/\(item.accountValue)/\(item.service)\(item.synchronizable ? "/sync" : "")=\(item.data.first.map(String.init) ?? "")@v\(item.version)"
        }

        /// Whether `app` may reach group index `group`.
        func isEntitled(app: Int, group: Int) -> Bool {
            keychains[app].app.isEntitled(to: groups[group])
        }
    }

    struct Mismatch: Error, CustomStringConvertible {
        let description: String
    }

    static let sequences = Gen.uint64(in: 0...UInt64.max).array(of: 1...30).map { $0.map(Operation.init) }

    @Test("every backend gives the model's statuses, results and final contents", arguments: [
        (TestBackend.memory, 300), (TestBackend.secretServicePerGroup, 60), (TestBackend.secretServiceSmallShards, 60), (TestBackend.secretService, 30),
    ])
    func backendsMatchTheModel(_ backend: TestBackend, cases: Int) throws {
        try check(backend, cases: cases, stores: 1)
    }

    @Test("two stores of one keyring, as two processes, give the model's statuses, results and final contents")
    func twoStoresMatchTheModel() throws {
        try check(.secretServiceSmallShards, cases: 60, stores: 2)
    }

    func check(_ backend: TestBackend, cases: Int, stores: Int) throws {
        let subjectStores = try (0..<stores).map { _ in try backend.makeStore() }
        let subjectStore = subjectStores[0]
        SeededProperty.check("operation sequences on \(backend)\(stores > 1 ? " (\(stores) stores)" : "")", count: cases, input: Self.sequences) { operations in
            let team = TestBackend.uniqueTeamID()
            let modelStore = InMemoryStore()
            let model = try Fixture(store: modelStore, team: team)
            let subject = try Fixture(stores: subjectStores, team: team)
            defer { _ = try? subjectStore.delete(matching: ItemQuery(groups: subject.groups)) }
            for (index, operation) in operations.enumerated() {
                let expected = model.perform(operation)
                let actual = subject.perform(operation)
                guard expected == actual else {
                    throw Mismatch(description: "call \(index + 1) (\(operation)): model \(expected), \(backend) \(actual)")
                }
                if let group = operation.group, !model.isEntitled(app: operation.app, group: group) {
                    guard actual == "status -34018" else {
                        throw Mismatch(description: "call \(index + 1) (\(operation)) reached a group it is not entitled to: \(actual)")
                    }
                }
            }
            let modelContents = try model.contents(of: modelStore)
            let subjectContents = try subject.contents(of: subjectStore)
            guard modelContents == subjectContents else {
                throw Mismatch(description: "final contents differ: model \(modelContents), \(backend) \(subjectContents)")
            }
            // Every item sits in a group its creator is entitled to.
            for item in try subjectStore.items(matching: ItemQuery(groups: subject.groups), limit: nil) {
                let creator = try #require(subject.keychains.firstIndex { $0.app.bundleID == item.provenance?.addedBy })
                guard subject.keychains[creator].app.isEntitled(to: item.group) else {
                    throw Mismatch(description: "\(item.provenance?.addedBy ?? "-") wrote into \(item.group)")
                }
            }
        }
    }
}
