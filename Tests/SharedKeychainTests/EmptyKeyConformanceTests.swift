import Foundation
import Testing
@testable import SharedKeychain

/// Issue 27, finding 5: an empty service, an empty account, or both, are keys like any other,
/// beside items that differ only there: each reads back, is updated and deleted alone, on every
/// backend and through SecItem. (The keyring searches an empty service on its records, and
/// once took the items of other services it found for damaged ones: errSecDecode.)
extension KeychainConformanceTests {
    /// Four items of one group that differ only in an empty or a named account and service.
    static let emptyKeyItems: [(account: String, service: String)] = [("", ""), ("", "svc"), ("alice", ""), ("alice", "svc")]

    static func data(_ account: String, _ service: String) -> Data {
        Data("data of '\(account)' at '\(service)'".utf8)
    }

    @Test("empty service, empty account and both read back beside items that differ only there", arguments: Target.all)
    func emptyServiceAndAccountReadBack(_ target: Target) throws {
        let suite = try Suite(target)
        for (account, service) in Self.emptyKeyItems {
            try suite.mail.add(NewItem(account: account, service: service, data: Self.data(account, service)))
        }
        for (account, service) in Self.emptyKeyItems {
            let found = try suite.calendar.copyMatching(KeychainQuery(account: account, service: service), limit: .all)
            #expect(found.map(\.data) == [Self.data(account, service)], "account '\(account)', service '\(service)'")
            #expect(found.map(\.account) == [account] && found.map(\.service) == [service])
            // Adding it again is a duplicate: the empty value is part of the key.
            #expect {
                try suite.mail.add(NewItem(account: account, service: service, data: Data("again".utf8)))
            } throws: { ($0 as? KeychainError)?.status == .duplicateItem }
        }
        #expect(try suite.calendar.copyMatching(KeychainQuery(service: ""), limit: .all).map(\.account) == ["", "alice"])
        #expect(try suite.calendar.copyMatching(KeychainQuery(account: ""), limit: .all).map(\.service) == ["", "svc"])
    }

    @Test("an item with an empty service or account is updated and deleted alone", arguments: Target.all)
    func emptyServiceAndAccountChangeAlone(_ target: Target) throws {
        let suite = try Suite(target)
        for (account, service) in Self.emptyKeyItems {
            try suite.mail.add(NewItem(account: account, service: service, data: Self.data(account, service)))
        }
        #expect(try suite.mail.update(KeychainQuery(account: "alice", service: ""), with: ItemChange(data: Data("changed".utf8))) == 1)
        #expect(try suite.calendar.first(KeychainQuery(account: "alice", service: "")).data == Data("changed".utf8))
        #expect(try suite.calendar.first(KeychainQuery(account: "alice", service: "svc")).data == Self.data("alice", "svc"))
        #expect(try suite.mail.delete(KeychainQuery(account: "", service: "")) == 1)
        #expect(throws: KeychainError.self) { try suite.calendar.first(KeychainQuery(account: "", service: "")) }
        let left = try suite.calendar.copyMatching(KeychainQuery(), limit: .all).map { "\($0.account)@\($0.service)" }
        #expect(left.sorted() == ["@svc", "alice@", "alice@svc"])
    }
}
