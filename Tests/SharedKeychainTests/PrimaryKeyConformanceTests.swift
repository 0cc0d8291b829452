import Foundation
import Testing
@testable import SharedKeychain

/// The password classes the conformance suite runs for: each test below makes the same items,
/// keys and queries as generic passwords and as internet passwords.
enum PasswordClass: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case generic
    case internet

    var testDescription: String { rawValue }

    /// The key attributes besides the account: a service, or an internet password's server,
    /// protocol, port and path (`site` varies them all).
    func item(_ account: AttributeValue, site: String = "one", group: String? = nil, data: String = "secret", synchronizable: Bool = false)
        -> NewItem
    {
        var item: NewItem
        switch self {
        case .generic:
            item = NewItem(account: account, service: .string("svc-\(site)"), group: group, data: Data(data.utf8))
        case .internet:
            item = NewItem(internetAccount: account, attributes(site), group: group, data: Data(data.utf8))
        }
        item.synchronizable = synchronizable
        return item
    }

    func attributes(_ site: String) -> InternetAttributes {
        InternetAttributes(
            securityDomain: "realm", server: "\(site).example.com", protocol: "htps", authenticationType: "dflt", port: 443,
            path: "/\(site)")
    }

    /// Every item of this class for `account` (nil: any) at `site` (nil: any), synchronizable or
    /// not as `synchronizable` says (nil: both, `kSecAttrSynchronizableAny`).
    func query(_ account: AttributeValue? = nil, site: String? = "one", synchronizable: Bool? = nil) -> KeychainQuery {
        let filters = ItemQuery.Filters(synchronizable: synchronizable)
        switch self {
        case .generic:
            var query = KeychainQuery(account: account, service: site.map { .string("svc-\($0)") }, filters: filters)
            query.filters.itemClass = .genericPassword
            return query
        case .internet:
            return .internet(account: account, site.map { InternetFields(server: "\($0).example.com") } ?? InternetFields(), filters: filters)
        }
    }
}

/// What makes an item unique, for both password classes, on every backend and through both
/// APIs: account (a `String` or `Data`), service or the internet attributes, group, and
/// `kSecAttrSynchronizable`.
@Suite("Keychain conformance: primary keys by class")
struct PrimaryKeyConformanceTests {
    typealias Suite = KeychainConformanceTests.Suite

    @Test(arguments: Target.all, PasswordClass.allCases)
    func aLocalAndASynchronizableItemWithOneKeyCoexist(_ target: Target, _ kind: PasswordClass) throws {
        let suite = try Suite(target)
        try suite.mail.add(kind.item(.string("alice"), data: "local"))
        try suite.mail.add(kind.item(.string("alice"), data: "synced", synchronizable: true))
        #expect(try suite.mail.first(kind.query(.string("alice"), synchronizable: false)).data == Data("local".utf8))
        #expect(try suite.mail.first(kind.query(.string("alice"), synchronizable: true)).data == Data("synced".utf8))
        // kSecAttrSynchronizableAny: both, oldest first.
        #expect(try suite.calendar.copyMatching(kind.query(.string("alice")), limit: .all).map(\.synchronizable) == [false, true])
        // Each is its own key: a second of either is a duplicate.
        for synchronizable in [false, true] {
            let error = #expect(throws: KeychainError.self) { try suite.mail.add(kind.item(.string("alice"), synchronizable: synchronizable)) }
            #expect(error?.status == .duplicateItem)
        }
        // Deleting one leaves the other.
        #expect(try suite.mail.delete(kind.query(.string("alice"), synchronizable: true)) == 1)
        #expect(try suite.mail.copyMatching(kind.query(.string("alice")), limit: .all).map(\.data) == [Data("local".utf8)])
        try suite.mail.add(kind.item(.string("alice"), data: "synced again", synchronizable: true))
        #expect(try suite.mail.copyMatching(kind.query(.string("alice")), limit: .all).count == 2)
    }

    /// Found by a test of an index written before keys had variants: gnome-keyring's replace
    /// took any item whose attributes included the new ones, so a local item added (or updated
    /// in place) after its synchronizable twin replaced the twin.
    @Test(arguments: Target.all, PasswordClass.allCases)
    func aLocalItemAddedOrUpdatedAfterItsTwinLeavesTheTwin(_ target: Target, _ kind: PasswordClass) throws {
        let suite = try Suite(target)
        try suite.mail.add(kind.item(.string("alice"), data: "synced", synchronizable: true))
        try suite.mail.add(kind.item(.string("alice"), data: "local"))
        try suite.mail.update(kind.query(.string("alice"), synchronizable: false), with: ItemChange(data: Data("local 2".utf8)))
        try suite.mail.update(kind.query(.string("alice"), synchronizable: true), with: ItemChange(label: "synced 2"))
        let both = try suite.calendar.copyMatching(kind.query(.string("alice")), limit: .all)
        #expect(both.map(\.data) == [Data("synced".utf8), Data("local 2".utf8)])
        #expect(both.map(\.label) == ["synced 2", nil])
    }

    @Test(arguments: Target.all, PasswordClass.allCases)
    func anUpdateMayNotGiveTwoItemsOneKeyTheFlagIncluded(_ target: Target, _ kind: PasswordClass) throws {
        let suite = try Suite(target)
        try suite.mail.add(kind.item(.string("alice"), data: "local"))
        try suite.mail.add(kind.item(.string("alice"), data: "synced", synchronizable: true))
        try suite.mail.add(kind.item(.string("bob"), data: "bob"))
        // bob -> alice (local) is taken; the synchronizable alice -> local is taken.
        let moves: [(KeychainQuery, ItemChange)] = [
            (kind.query(.string("bob")), ItemChange(account: "alice")),
            (kind.query(.string("alice"), synchronizable: true), ItemChange(synchronizable: false)),
        ]
        for (query, change) in moves {
            let error = #expect(throws: KeychainError.self) { try suite.mail.update(query, with: change) }
            #expect(error?.status == .duplicateItem)
        }
        // bob -> synchronizable is free.
        try suite.mail.update(kind.query(.string("bob")), with: ItemChange(synchronizable: true))
        #expect(try suite.mail.first(kind.query(.string("bob"))).synchronizable)
        // Once the local alice is gone, the synchronizable one may become local.
        try suite.mail.delete(kind.query(.string("alice"), synchronizable: false))
        try suite.mail.update(kind.query(.string("alice")), with: ItemChange(synchronizable: false))
        let alice = try suite.mail.copyMatching(kind.query(.string("alice")), limit: .all)
        #expect(alice.map(\.synchronizable) == [false])
        #expect(alice.map(\.data) == [Data("synced".utf8)])
    }

    @Test(arguments: Target.all, PasswordClass.allCases)
    func dataAccountsAreKeptMatchedAndReturnedAsData(_ target: Target, _ kind: PasswordClass) throws {
        let suite = try Suite(target)
        let bytes = Data([0xFF, 0x00, 0xFE, 0x41])
        let added = try suite.mail.add(kind.item(.data(bytes), data: "binary account"))
        #expect(added.accountValue == .data(bytes))
        let found = try suite.calendar.first(kind.query(.data(bytes)))
        #expect(found.accountValue == .data(bytes))
        #expect(found.accountIsData)
        #expect(found.data == Data("binary account".utf8))
        // Valid UTF-8 as Data is the same key as the equal string, and comes back as Data.
        try suite.mail.add(kind.item(.data(Data("carol".utf8)), data: "carol"))
        let taken = #expect(throws: KeychainError.self) { try suite.mail.add(kind.item(.string("carol"))) }
        #expect(taken?.status == .duplicateItem)
        let carol = try suite.mail.first(kind.query(.string("carol")))
        #expect(carol.accountValue == .data(Data("carol".utf8)))
        // A string account stays a string, even one that looks like the storage form of bytes.
        let lookalike = AttributeBytes.marker + "AAE="
        try suite.mail.add(kind.item(.string(lookalike), data: "lookalike"))
        #expect(try suite.mail.first(kind.query(.string(lookalike))).accountValue == .string(lookalike))
        // ... and is not the bytes that form would stand for.
        #expect(throws: KeychainError.self) { try suite.mail.first(kind.query(.data(Data([0x00, 0x01])))) }
        // An update may give the item a Data account.
        try suite.mail.update(kind.query(.string(lookalike)), with: ItemChange(account: AttributeValue.data(Data([0x80])).key, accountIsData: true))
        #expect(try suite.mail.first(kind.query(.data(Data([0x80])))).accountValue == .data(Data([0x80])))
        #expect(try suite.mail.copyMatching(kind.query(site: "one"), limit: .all).count == 3)
    }

    @Test(arguments: Target.all)
    func dataServicesAreKeptAndReturnedAsData(_ target: Target) throws {
        let suite = try Suite(target)
        let service = Data([0xC3, 0x28])
        try suite.mail.add(NewItem(account: .string("alice"), service: .data(service), data: Data("x".utf8)))
        let found = try suite.mail.first(KeychainQuery(account: .string("alice"), service: .data(service)))
        #expect(found.serviceValue == .data(service))
        #expect(found.accountValue == .string("alice"))
    }
}

/// The everyday operations, for both classes: the same answers whatever the class.
@Suite("Keychain conformance: operations by class")
struct ClassOperationConformanceTests {
    typealias Suite = KeychainConformanceTests.Suite

    @Test(arguments: Target.all, PasswordClass.allCases)
    func addFindUpdateAndDeleteInCreationOrder(_ target: Target, _ kind: PasswordClass) throws {
        let suite = try Suite(target)
        for (index, account) in ["carol", "alice", "bob"].enumerated() {
            try suite.mail.add(kind.item(.string(account), data: "d\(index)"))
        }
        // Oldest first, with a numeric limit too.
        #expect(try suite.calendar.copyMatching(kind.query(), limit: .all).map(\.account) == ["carol", "alice", "bob"])
        #expect(try suite.calendar.copyMatching(kind.query(), limit: .count(2)).map(\.account) == ["carol", "alice"])
        let before = try suite.mail.first(kind.query(.string("alice")))
        #expect(try suite.calendar.update(kind.query(.string("alice")), with: ItemChange(label: "relabelled", data: Data("new".utf8))) == 1)
        let after = try suite.mail.first(kind.query(.string("alice")))
        #expect(after.data == Data("new".utf8))
        #expect(after.label == "relabelled")
        #expect(after.creationDate == before.creationDate)
        #expect(after.itemClass == before.itemClass)
        // Not entitled: refused; not there: not found.
        #expect(throws: KeychainError.self) { try suite.notes.first(kind.query(.string("alice"))) }
        let missing = #expect(throws: KeychainError.self) { try suite.mail.delete(kind.query(.string("nobody"))) }
        #expect(missing?.status == .itemNotFound)
        #expect(try suite.mail.delete(kind.query()) == 3)
        #expect(try suite.mail.copyAll(kind.query()).isEmpty)
    }

    /// An empty service is the generic password's; internet passwords have none, and the Swift
    /// API's query without a class finds both by it, on every backend alike.
    @Test(arguments: Target.all.filter { $0.api == .swift })
    func anEmptyServiceMatchesBothClassesWithoutAClass(_ target: Target) throws {
        let suite = try Suite(target)
        try suite.mail.add(PasswordClass.internet.item(.string("alice"), data: "web"))
        try suite.mail.add(NewItem(account: "alice", service: "", data: Data("app".utf8)))
        #expect(try suite.mail.copyMatching(KeychainQuery(account: "alice", service: ""), limit: .all).map(\.itemClass) == [.internetPassword, .genericPassword])
    }
}
