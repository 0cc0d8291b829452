import Foundation
import KeychainStorage
import SharedKeychain
import Synchronization
import Testing
@testable import TokenCache

/// Another app's add of the same key lands just before the cache's next add of an item of
/// `racedType`, once per ``arm()`` (and once from the start when `armed`): the cache's add answers
/// errSecDuplicateItem.
final class AddRacingStore: ItemStore {
    let base: any ItemStore
    let racedType: UInt32
    private let raced = Mutex(false)

    /// Races the next add of `racedType` again.
    func arm() { raced.withLock { $0 = false } }
    var name: String { base.name }
    var userAuthentication: AuthenticationProvider? { base.userAuthentication }

    init(racing racedType: UInt32, armed: Bool = true, base: any ItemStore = InMemoryStore()) {
        self.racedType = racedType
        self.base = base
        raced.withLock { $0 = !armed }
    }

    func add(_ item: StoredItem) throws(StorageError) {
        let race = item.type == racedType && raced.withLock { raced in defer { raced = true }; return !raced }
        if race { try base.add(item) }
        try base.add(item)
    }

    func items(matching query: ItemQuery, limit: Int?) throws(StorageError) -> [StoredItem] {
        try base.items(matching: query, limit: limit)
    }

    func update(matching query: ItemQuery, with change: ItemChange, at date: Date) throws(StorageError) -> Int {
        try base.update(matching: query, with: change, at: date)
    }

    func delete(matching query: ItemQuery) throws(StorageError) -> Int {
        try base.delete(matching: query)
    }
}

/// A failed cache write as MSAL has it: IdentityCore `MSIDKeychainTokenCache.m` `saveData`
/// (one update, at most one add), `MSIDDefaultTokenCacheAccessor.m`
/// `saveTokensWithConfiguration` (the first failed item stops the save) and
/// `MSIDTokenResponseValidator.m` `validateAndSaveTokenResponse` (failures are logged, the
/// token is returned).
@Suite("Save failures")
struct SaveFailureTests {
    /// `saveData`: SecItemUpdate, then on errSecItemNotFound one SecItemAdd; another app's add
    /// in between makes it errSecDuplicateItem, which fails the item with no retry, and
    /// `saveTokensWithConfiguration` stops there: the ID token, refresh tokens, app metadata
    /// and account of the response are not written.
    @Test func saveDataMakesOneUpdateThenOneAdd() throws {
        let suite = try Suite(.memory, store: AddRacingStore(racing: CredentialType.accessToken.itemType))
        let recorder = KeychainTraceTests.Recorder()
        let app = try KeychainTraceTests().traced(suite, recorder)
        let result = try app.signIn(username: "alice@contoso.com")
        let calls = recorder.take().filter { $0.type == CredentialType.accessToken.itemType && $0.function != .copyMatching }
        #expect(calls.map(\.function) == [.update, .add])
        #expect(calls.map(\.status) == [.itemNotFound, .duplicateItem])
        #expect(result.source == .interactive)
        #expect(!result.accessToken.value.isEmpty)
        let failure = try #require(result.cacheSaveFailures.only)
        #expect(failure.step == .tokens)
        #expect(failure.call?.function == .add)
        #expect(failure.call?.type == CredentialType.accessToken.itemType)
        #expect(failure.status == .duplicateItem)
        #expect(failure.itemsWritten == 0)
        // The account metadata (its own step) and the other app's access token: nothing after.
        #expect(try suite.cacheItems().compactMap(\.type).sorted() == [CredentialType.accessToken.itemType, ItemType.accountMetadata])
        #expect(!failure.description.contains(result.accessToken.value))
    }

    /// `validateAndSaveTokenResponse`: an app whose entitlements lack the cache group gets its
    /// token; the failed account-metadata update and the failed save are both reported with
    /// errSecMissingEntitlement, nothing is written, and its next silent acquire and account
    /// list fail as on a device (MSAL ObjC #821, "Failed to set item into keychain").
    @Test(arguments: Backend.memoryAndKeyring)
    func validateAndSaveTokenResponseReturnsTheTokenWhenTheSaveFails(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let notes = try suite.app("com.contoso.notes", client: "0a1b2c3d-5555-4555-8555-555555555555", family: "1", entitled: false)
        let result = try notes.signIn(username: "alice@contoso.com")
        #expect(result.source == .interactive)
        #expect(result.cacheSaveFailures.map(\.step) == [.accountMetadata, .tokens])
        #expect(result.cacheSaveFailures.allSatisfy { $0.status == .missingEntitlement && $0.status.rawValue == -34018 })
        #expect(result.cacheSaveFailures.allSatisfy { $0.itemsWritten == 0 && $0.call?.status == .missingEntitlement })
        #expect(try suite.cacheItems().isEmpty)
        let silent = #expect(throws: TokenCacheError.self) { try notes.acquireTokenSilent(account: result.account.homeAccountID, scopes: ["user.read"]) }
        #expect(silent?.status == .missingEntitlement)
        let listing = #expect(throws: TokenCacheError.self) { try notes.accounts() }
        #expect(listing?.status == .missingEntitlement)
    }

    /// Before the first unlock the adds of MSAL's class (afterFirstUnlockThisDeviceOnly) fail
    /// with errSecInteractionNotAllowed: the sign-in returns its token and caches nothing.
    @Test func signInBeforeTheFirstUnlockReturnsTheTokenAndCachesNothing() throws {
        let lock = Mutex(DeviceLockState(locked: true, unlockedSinceBoot: false))
        let suite = try Suite(.memory, store: InMemoryStore(deviceLock: { lock.withLock { $0 } }))
        let result = try suite.mail.signIn(username: "alice@contoso.com")
        #expect(result.cacheSaveFailures.map(\.step) == [.accountMetadata, .tokens])
        #expect(result.cacheSaveFailures.map(\.status.rawValue) == [-25308, -25308])
        #expect(result.cacheSaveFailures.map { $0.call?.function } == [.add, .add])
        lock.withLock { $0 = .unlocked }
        #expect(try suite.cacheItems().isEmpty)
        #expect(try suite.mail.accounts().isEmpty)
    }

    /// `updateAccountMetadataForHomeAccountId` logs a failed update and the save goes on: the
    /// response's tokens are all written.
    @Test func aFailedAccountMetadataUpdateIsLoggedAndTheTokensAreStillSaved() throws {
        let suite = try Suite(.memory, store: AddRacingStore(racing: ItemType.accountMetadata))
        let result = try suite.mail.signIn(username: "alice@contoso.com")
        let failure = try #require(result.cacheSaveFailures.only)
        #expect(failure.step == .accountMetadata)
        #expect(failure.status == .duplicateItem)
        #expect(try suite.calendar.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"]).source == .familyRefreshToken)
    }

    /// A silent refresh whose save fails returns the redeemed token, as an interactive one
    /// (`MSIDSilentTokenRequest` saves through `validateAndSaveTokenResponse` too).
    @Test func silentRefreshReturnsTheTokenWhenTheSaveFails() throws {
        let store = AddRacingStore(racing: CredentialType.accessToken.itemType, armed: false)
        let suite = try Suite(.memory, store: store)
        try suite.mail.signIn(username: "alice@contoso.com")
        store.arm()
        let refreshed = try suite.mail.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"], forceRefresh: true)
        #expect(refreshed.source == .refreshToken)
        let failure = try #require(refreshed.cacheSaveFailures.only)
        #expect(failure.step == .tokens)
        #expect(failure.call?.function == .add)
        #expect(failure.status.rawValue == -25299)
    }
}

extension Collection {
    /// The one element, or nil when there are none or several.
    var only: Element? { count == 1 ? first : nil }
}
