import Foundation
import PropertyBased
import Testing
@testable import TokenCache

/// MSAL's account-metadata item under arbitrary entries: the encoding every token response
/// writes (put together from entries encoded once, ``AccountMetadataJSON``) gives exactly the
/// bytes of the generic JSON encoding of its fields (sorted keys, compact), parsing those bytes
/// gives the value back, and the memo answers only for the exact bytes it remembered.
@Suite("Properties: the account-metadata item's JSON")
struct AccountMetadataEncodingProperties {
    /// Home account IDs and map values that stress escaping and key order.
    static let pieces = ["a", "B", "é", "\"", "\\", "/", "\n", "0", "-", ".", "😀", " ", "\u{1}", "z"]

    @Test("the encoding equals the generic one, after changes too, and parses back to the same value")
    func typedEncodingMatchesGeneric() throws {
        let input = Gen.uint64(in: 0...UInt64.max).array(of: 0...24)
        SeededProperty.check("account metadata encodings", count: 300, input: input) { bits in
            var item = AccountMetadataItem(clientID: "client-\(bits.count)")
            for (index, value) in bits.enumerated() {
                let home = (0..<Int(value % 5 + 1)).map { Self.pieces[Int((value >> (8 * UInt64($0))) % UInt64(Self.pieces.count))] }.joined() + "\(index % 7)"
                let states: [SignInState] = [.signedIn, .signedOut, .unknown]
                item.setState(states[Int(value % 3)], for: home)
            }
            if let first = bits.first, first % 2 == 0 {
                item.principal = ["principal_username": .string("user\(Self.pieces[Int(first % UInt64(Self.pieces.count))])"),
                                  "principal_home_account_id": .string("h")]
            }
            let typed = item.encoded()
            #expect(typed == CacheJSON.data(item.fields), "\(String(decoding: typed, as: UTF8.self))")
            let object = try #require(CacheJSON.object(from: typed))
            #expect(try AccountMetadataItem(object: object) == item)
            // Rewritten with one entry changed and one added, as a sign-in does: the entries
            // encoded before are reused, and the bytes are still the whole object's.
            if let first = item.entries.keys.first {
                item.setState(item.entries[first]?.state == .signedIn ? .signedOut : .signedIn, for: first)
            }
            item.setState(.signedIn, for: "new\(bits.count)")
            #expect(item.encoded() == CacheJSON.data(item.fields))
        }
    }

    @Test("the memo answers for the bytes it remembered and no others")
    func memoAnswersOnlyForItsBytes() throws {
        var item = AccountMetadataItem(clientID: "memo-client")
        item.setState(.signedIn, for: "home.one")
        let data = item.encoded()
        #expect(AccountMetadataMemo.value(of: data, service: "memo-client") == item)
        var other = data
        other[other.startIndex] = UInt8(ascii: " ")
        #expect(AccountMetadataMemo.value(of: other, service: "memo-client") == nil)
        #expect(AccountMetadataMemo.value(of: data, service: "another-client") == nil)
    }
}
