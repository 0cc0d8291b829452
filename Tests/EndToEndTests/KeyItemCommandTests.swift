import Foundation
import Testing

/// Issue 31 on the command line: key items (`item --class key`) shared by two apps of a group,
/// named by their tag and class, their data never printed but by `item get`.
@Suite("End to end: key items", .serialized)
struct KeyItemCommandTests {
    @Test func aKeyAddedByOneAppIsFoundByAnotherThroughTheSharedGroup() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let shared = try cli.entitlements("shared", groups: ["$(AppIdentifierPrefix)com.microsoft.adalcache"])
        let mail = ["--app", "com.contoso.mail", "--team", "ABCDE12345", "--entitlements", shared]
        let calendar = ["--app", "com.contoso.calendar", "--team", "ABCDE12345", "--entitlements", shared]
        let group = ["--group", "ABCDE12345.com.microsoft.adalcache"]
        // MSAL's broker key: the tag with its NUL, symmetric, AES, 256 bits.
        let brokerKey = ["--class", "key", "--tag-hex", Data("com.microsoft.adBrokerKey\0".utf8).map { String(format: "%02x", $0) }.joined()]
        let attributes = ["--key-class", "symmetric", "--key-type", "aes", "--key-size", "256", "--effective-key-size", "256"]
        let add = try cli.run(["item", "add"] + mail + group + brokerKey + attributes + ["--data", "key-bytes", "--json"])
        #expect(add.status == 0, "\(add.standardError)")
        let added = try add.jsonObject()
        #expect(added["class"] as? String == "key")
        #expect(added["data"] == nil)
        #expect(added["dataBase64"] == nil)
        #expect(try cli.run(["item", "add"] + mail + group + brokerKey + attributes + ["--data", "again"]).status == 12)

        let found = try cli.run(["item", "get"] + calendar + brokerKey + ["--key-type", "aes"])
        #expect(found.status == 0, "\(found.standardError)")
        #expect(found.output == "key-bytes")
        let listed = try cli.run(["item", "list"] + calendar + ["--class", "key", "--json"]).jsonArray()
        #expect(listed.count == 1)
        let item = try #require(listed.first)
        #expect(item["group"] as? String == "ABCDE12345.com.microsoft.adalcache")
        #expect(item["keyTag"] as? String == "com.microsoft.adBrokerKey\0")
        #expect(item["data"] == nil)
        let key = try #require(item["key"] as? [String: Any])
        #expect(key["keyClass"] as? String == "2")
        #expect(key["keyType"] as? Int == 2_147_483_649)
        #expect(key["keySizeInBits"] as? Int == 256)
        let table = try cli.run(["item", "list"] + calendar + ["--class", "key"])
        #expect(table.output.contains("key com.microsoft.adBrokerKey"))
        #expect(!table.output.contains("key-bytes"))

        #expect(try cli.run(["item", "update"] + calendar + brokerKey + ["--data", "rotated"]).status == 0)
        #expect(try cli.run(["item", "get"] + mail + brokerKey).output == "rotated")
        // Key options belong to keys; a key has no account.
        #expect(try cli.run(["item", "add"] + mail + ["--account", "a", "--service", "s", "--tag", "t", "--data", "x"]).status == 10)
        #expect(try cli.run(["item", "add"] + mail + ["--class", "key", "--account", "a", "--tag", "t", "--data", "x"]).status == 10)
        #expect(try cli.run(["item", "delete"] + calendar + brokerKey + ["--key-class", "symmetric"]).output == "deleted 1 item\n")
        #expect(try cli.run(["item", "get"] + mail + brokerKey).status == 11)
    }
}
