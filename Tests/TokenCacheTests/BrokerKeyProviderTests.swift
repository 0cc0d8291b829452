import Foundation
import SharedKeychain
import Testing
@testable import TokenCache

/// The broker key as IdentityCore keeps it (`requests/broker/MSIDBrokerKeyProvider.m`, tests
/// in `IdentityCore/tests/integration/ios/MSIDBrokerKeyProviderTests.m`): one `kSecClassKey`
/// item per MSAL sharing group, which every app of the group uses.
@Suite("Broker key (MSIDBrokerKeyProvider)")
struct BrokerKeyProviderTests {
    /// The key item in the suite's shared group, if any.
    func keyItems(_ suite: Suite) throws -> [KeychainItem] {
        do { return try suite.mail.keychain.copyMatching(BrokerKeyProvider.query(group: suite.group), limit: .all) } catch {
            guard case .itemNotFound = error else { throw error }
            return []
        }
    }

    /// testBrokerKeyWithError_whenNoKeyInKeychain_shouldCreateNewKey: a 256-bit key, added with
    /// `createBrokerKeyWithError`'s attributes and accessibility, in the cache's group.
    @Test(arguments: Backend.memoryAndKeyring)
    func brokerKeyWithErrorWhenNoKeyInKeychainShouldCreateNewKey(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let key = try suite.mail.brokerKey()
        #expect(key.count == 32)
        let items = try keyItems(suite)
        #expect(items.count == 1)
        let item = try #require(items.first)
        #expect(item.group == suite.group)
        #expect(item.itemClass == .key)
        #expect(item.key?.applicationTag == Data("com.microsoft.adBrokerKey\u{0}".utf8))
        #expect(item.key?.keyClass == "2")
        #expect(item.key?.keyType == 2_147_483_649)
        #expect(item.key?.keySizeInBits == 256 && item.key?.effectiveKeySize == 256)
        #expect(item.accessibility == .afterFirstUnlockThisDeviceOnly)
        #expect(item.data == key)
        // No generic password of the emulator's earlier layout is made.
        #expect(try suite.cacheItems().isEmpty)
    }

    /// testBrokerKeyWithError_whenKeyInKeychain_shouldReturnKey, across apps: the second app of
    /// the group finds the first app's key and makes none.
    @Test(arguments: Backend.memoryAndKeyring)
    func brokerKeyIsSharedByEveryAppOfTheGroup(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let recorder = KeychainTraceTests.Recorder()
        let mailKey = try suite.mail.brokerKey()
        let traced = try KeychainTraceTests().traced(suite, recorder)
        _ = recorder.take()
        #expect(try traced.brokerKey() == mailKey)
        #expect(try suite.calendar.brokerKey() == mailKey)
        #expect(try suite.mail.brokerKey() == mailKey)
        #expect(try keyItems(suite).count == 1)
        // MSAL's one read: class key, the tag, in the group; found.
        let calls = recorder.take()
        #expect(calls.map(\.shape) == ["SecItemCopyMatching tag=com.microsoft.adBrokerKey\u{0}"])
        #expect(calls.first?.status == .success)
        #expect(calls.first?.description.contains("class=key tag='com.microsoft.adBrokerKey\\0'") == true)
    }

    /// What happens when one app deletes the group's key while another waits for the broker:
    /// `MSIDBrokerResponseHandler` reads the key again (`brokerKeyWithError`, which makes a new
    /// one), so `MSIDBrokerCryptoProvider decryptBrokerResponse` fails with
    /// `MSIDErrorBrokerResponseDecryptionFailed` ("Failed to decrypt broker message") for every
    /// app of the group whose request is outstanding.
    @Test(arguments: Backend.memoryAndKeyring)
    func deletingTheBrokerKeyBreaksEveryAppsBrokeredResponse(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let broker = try BrokerMessageTests.broker(suite)
        let mailRequest = try suite.mail.brokerRequest(loginHint: "alice@contoso.com", scopes: ["user.read"], redirectURI: "msauth.com.contoso.mail://auth")
        let calendarRequest = try suite.calendar.brokerRequest(
            loginHint: "alice@contoso.com", scopes: ["user.read"], redirectURI: "msauth.com.contoso.calendar://auth")
        #expect(mailRequest.brokerKey == calendarRequest.brokerKey)
        let mailAnswer = try broker.handle(mailRequest.url, caller: "com.contoso.mail")
        let calendarAnswer = try broker.handle(calendarRequest.url, caller: "com.contoso.calendar")

        // A third app of the group deletes the key (MSAL's createBrokerKeyWithError deletes first too).
        let other = try suite.app("com.contoso.notes", client: "0a1b2c3d-3333-4333-8333-333333333333")
        #expect(try other.deleteBrokerKey() == 1)
        for (app, answer, request) in [(suite.mail, mailAnswer, mailRequest), (suite.calendar, calendarAnswer, calendarRequest)] {
            do {
                _ = try app.acceptBrokerResponse(answer.url, to: request)
                Issue.record("\(app.keychain.app.bundleID) decrypted a response with a key made after the request")
            } catch {
                #expect(error == .brokerResponseDecryptionFailed(app: app.keychain.app.bundleID, group: suite.group))
                #expect(error.errorCode == "MSIDErrorBrokerResponseDecryptionFailed")
                #expect(error.message.hasPrefix("Failed to decrypt broker message"))
            }
        }
        // Nothing was cached; the group now holds one new key, which a new request carries and opens.
        #expect(try suite.cacheItems().isEmpty)
        let newKey = try #require(try keyItems(suite).first?.data)
        #expect(newKey != mailRequest.brokerKey)
        let retry = try suite.mail.brokerRequest(loginHint: "alice@contoso.com", scopes: ["user.read"], redirectURI: "msauth.com.contoso.mail://auth")
        #expect(retry.brokerKey == newKey)
        let result = try suite.mail.acceptBrokerResponse(try broker.handle(retry.url, caller: "com.contoso.mail").url, to: retry)
        #expect(result.source == .broker)
    }

    /// MSIDKeychainTokenCache's queries name kSecClassGenericPassword: a full wipe
    /// (`clearWithContext`) leaves the group's broker key.
    @Test(arguments: Backend.memoryAndKeyring)
    func aWipeOfTheCacheLeavesTheBrokerKey(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let key = try suite.mail.brokerKey()
        _ = try suite.mail.signIn(username: "alice@contoso.com")
        #expect(try suite.mail.wipeCacheForAllAccounts() > 0)
        #expect(try keyItems(suite).map(\.data) == [key])
        #expect(try suite.calendar.brokerKey() == key)
    }
}
