import Foundation
import Testing
@testable import SharedKeychain

/// Internet passwords (`kSecClassInternetPassword`) on every backend, through both APIs: Apple's
/// primary key (account, security domain, server, protocol, authentication type, port, path,
/// group, synchronizable), every attribute a filter, and the classes kept apart.
@Suite("Keychain conformance: internet passwords")
struct InternetPasswordConformanceTests {
    typealias Suite = KeychainConformanceTests.Suite

    let base = InternetAttributes(
        securityDomain: "realm", server: "login.example.com", protocol: "htps", authenticationType: "form", port: 443, path: "/signin")

    func item(_ attributes: InternetAttributes, account: String = "alice", data: String) -> NewItem {
        NewItem(internetAccount: .string(account), attributes, data: Data(data.utf8))
    }

    @Test(arguments: Target.all)
    func everyKeyAttributeMakesAnotherItem(_ target: Target) throws {
        let suite = try Suite(target)
        var variants: [(String, InternetAttributes)] = [("base", base)]
        let changes: [(String, WritableKeyPath<InternetAttributes, String>, String)] = [
            ("domain", \.securityDomain, "other realm"), ("server", \.server, "api.example.com"), ("protocol", \.protocol, "http"),
            ("authentication", \.authenticationType, "dflt"), ("path", \.path, "/other"),
        ]
        for (name, path, value) in changes {
            var attributes = base
            attributes[keyPath: path] = value
            variants.append((name, attributes))
        }
        var port = base
        port.port = 8443
        variants.append(("port", port))
        for (name, attributes) in variants { try suite.mail.add(item(attributes, data: name)) }
        // The same attributes again are a duplicate.
        let error = #expect(throws: KeychainError.self) { try suite.mail.add(item(base, data: "again")) }
        #expect(error?.status == .duplicateItem)
        // Each attribute filters: the variant that differs in it is found alone by its value.
        let filters: [(InternetFields, String)] = [
            (InternetFields(securityDomain: "other realm"), "domain"), (InternetFields(server: "api.example.com"), "server"),
            (InternetFields(protocol: "http"), "protocol"), (InternetFields(authenticationType: "dflt"), "authentication"),
            (InternetFields(port: 8443), "port"), (InternetFields(path: "/other"), "path"),
        ]
        for (fields, expected) in filters {
            #expect(try suite.calendar.copyMatching(.internet(account: .string("alice"), fields), limit: .all).map(\.data) == [Data(expected.utf8)])
        }
        // All attributes given: exactly the base item, with every attribute returned.
        let exact = InternetFields(
            securityDomain: base.securityDomain, server: base.server, protocol: base.protocol, authenticationType: base.authenticationType,
            port: base.port, path: base.path)
        let found = try suite.mail.copyMatching(.internet(exact), limit: .all)
        #expect(found.map(\.data) == [Data("base".utf8)])
        #expect(found.first?.internet == base)
        #expect(found.first?.itemClass == .internetPassword)
        #expect(try suite.mail.copyMatching(.internet(), limit: .all).count == 7)
    }

    @Test(arguments: Target.all)
    func theClassesAreKeptApart(_ target: Target) throws {
        let suite = try Suite(target)
        try suite.mail.add(item(base, data: "web"))
        try suite.mail.add(NewItem(account: "alice", service: "", data: Data("app".utf8)))
        var generic = KeychainQuery(account: "alice")
        generic.filters.itemClass = .genericPassword
        #expect(try suite.mail.copyMatching(generic, limit: .all).map(\.data) == [Data("app".utf8)])
        #expect(try suite.mail.copyMatching(.internet(account: .string("alice")), limit: .all).map(\.data) == [Data("web".utf8)])
        // Deleting the generic password leaves the internet password.
        #expect(try suite.mail.delete(generic) == 1)
        #expect(try suite.mail.first(.internet(account: .string("alice"))).data == Data("web".utf8))
        #expect(throws: KeychainError.self) { try suite.mail.first(generic) }
    }

    @Test(arguments: Target.all)
    func updatesChangeAttributesAndRefuseATakenKey(_ target: Target) throws {
        let suite = try Suite(target)
        try suite.mail.add(item(base, data: "first"))
        var other = base
        other.port = 8443
        try suite.mail.add(item(other, data: "second"))
        let taken = #expect(throws: KeychainError.self) {
            try suite.mail.update(.internet(InternetFields(port: 8443)), with: ItemChange(internet: InternetFields(port: 443)))
        }
        #expect(taken?.status == .duplicateItem)
        try suite.mail.update(.internet(InternetFields(port: 8443)), with: ItemChange(data: Data("changed".utf8), internet: InternetFields(path: "/new")))
        let moved = try suite.mail.first(.internet(InternetFields(path: "/new")))
        #expect(moved.data == Data("changed".utf8))
        #expect(moved.internet?.port == 8443)
        #expect(try suite.mail.copyMatching(.internet(InternetFields(path: "/signin")), limit: .all).map(\.data) == [Data("first".utf8)])
    }

    @Test(arguments: Target.all)
    func attributesNotGivenAreApplesDefaults(_ target: Target) throws {
        let suite = try Suite(target)
        try suite.mail.add(item(InternetAttributes(server: "bare.example.com"), data: "bare"))
        let found = try suite.mail.first(.internet(InternetFields(server: "bare.example.com", port: 0, path: "")))
        #expect(found.internet == InternetAttributes(server: "bare.example.com"))
    }
}
