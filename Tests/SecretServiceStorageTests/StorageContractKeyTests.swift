import Foundation
import KeychainStorage
import KeychainTestSupport
import Testing
@testable import SecretServiceStorage

/// The storage contract's attributes for internet passwords, synchronizable items and accounts
/// given as Data, as `secret-tool` sees them (StorageContract.md).
@Suite("Storage contract: internet passwords, synchronizable items, Data accounts", .serialized)
struct StorageContractKeyTests {
    let contract = StorageContractTests()

    @Test("secret-tool finds an internet password by its documented attributes", arguments: TestKeyring.Layout.allCases)
    func internetPasswordsAreFoundByTheirAttributes(layout: TestKeyring.Layout) throws {
        try TestKeyring.withSharedAccess {
            let store = try TestKeyring.unguardedStore(layout)
            let bus = try TestKeyring.busAddress()
            let group = TestKeyring.uniqueGroup("internet")
            var item = Fixture.item(group, "alice", "", data: Data("web-secret".utf8))
            item.internet = InternetAttributes(
                securityDomain: "realm", server: "login.example.com", protocol: "htps", authenticationType: "form", port: 443, path: "/signin")
            try store.add(item)
            let lookup = [
                "lookup", "access-group", group, "class", "internet", "server", "login.example.com", "account", "alice", "protocol", "htps",
                "port", "443", "path", "/signin", "security-domain", "realm", "authentication-type", "form",
            ]
            let raw = try SecretTool.run(lookup, bus: bus)
            #expect(raw.text.hasPrefix("SKCITEM1"))
            #expect(raw.text.hasSuffix("web-secret"))
            // No service attribute: a search by service does not find it.
            #expect(try SecretTool.run(["search", "--all", "access-group", group, "service", ""], bus: bus).text.isEmpty)
        }
    }

    @Test("an internet password secret-tool stores is adopted as one; without a class it stays generic", arguments: [TestKeyring.Layout.collectionPerGroup])
    func externalInternetPasswordsAreAdopted(layout: TestKeyring.Layout) throws {
        try TestKeyring.withSharedAccess {
            let store = try TestKeyring.unguardedStore(layout) { $0.foreignItemsRecheckInterval = 0 }
            let bus = try TestKeyring.busAddress()
            let group = TestKeyring.uniqueGroup("adopt-internet")
            try contract.store(group, label: "Web", secret: "plain", ["account": "bob", "class": "internet", "server": "example.com", "port": "8080"], bus: bus)
            try contract.store(group, label: "Old", secret: "old", ["account": "bob", "service": "rt"], bus: bus)
            let internet = try store.items(matching: ItemQuery(groups: [group], filters: .init(itemClass: .internetPassword)), limit: nil)
            #expect(internet.map(\.data) == [Data("plain".utf8)])
            #expect(internet.first?.internet == InternetAttributes(server: "example.com", port: 8080))
            let generic = try store.items(matching: ItemQuery(groups: [group], filters: .init(itemClass: .genericPassword)), limit: nil)
            #expect(generic.map(\.service) == ["rt"])
            _ = try store.delete(matching: ItemQuery(groups: [group]))
        }
    }

    @Test("a synchronizable twin carries synchronizable 1; bytes that are no text are base64 after the marker", arguments: TestKeyring.Layout.allCases)
    func synchronizableAndDataAccountsAsAttributes(layout: TestKeyring.Layout) throws {
        try TestKeyring.withSharedAccess {
            let store = try TestKeyring.unguardedStore(layout)
            let bus = try TestKeyring.busAddress()
            let group = TestKeyring.uniqueGroup("sync")
            try store.add(Fixture.item(group, "alice", "rt", data: Data("local".utf8)))
            var twin = Fixture.item(group, "alice", "rt", data: Data("synced".utf8))
            twin.synchronizable = true
            try store.add(twin)
            let synced = try SecretTool.run(["lookup", "access-group", group, "account", "alice", "service", "rt", "synchronizable", "1"], bus: bus)
            #expect(synced.text.hasSuffix("synced"))
            #expect(try SecretTool.run(["search", "--all", "access-group", group, "account", "alice"], bus: bus).text.components(separatedBy: "[/").count == 3)

            let bytes = Data([0xFF, 0xFE, 0x00])
            var binary = Fixture.item(group, AttributeBytes.key(for: bytes), "rt", data: Data("binary".utf8))
            binary.accountIsData = true
            try store.add(binary)
            let account = "\u{1}base64:" + bytes.base64EncodedString()
            #expect(try SecretTool.run(["lookup", "access-group", group, "account", account], bus: bus).text.hasSuffix("binary"))
            let found = try store.items(matching: ItemQuery(groups: [group], account: account), limit: nil)
            #expect(found.map(\.accountValue) == [.data(bytes)])
            _ = try store.delete(matching: ItemQuery(groups: [group]))
        }
    }
}
