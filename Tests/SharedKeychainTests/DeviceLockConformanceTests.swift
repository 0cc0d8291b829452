import Foundation
import KeychainStorage
import KeychainTestSupport
import SecretServiceStorage
import SharedKeychain
import Synchronization
import Testing

/// The device's lock against each accessibility class, on both backends: the in-memory store
/// asks the lock state; the Secret Service store also has gnome-keyring lock the protected
/// classes' shards, as `device lock` does.
@Suite("Device lock and accessibility")
struct DeviceLockConformanceTests {
    /// A device whose lock a test sets, and a keychain on `backend` that obeys it.
    final class LockState: Sendable {
        let value = Mutex(DeviceLockState.unlocked)
    }

    final class Rig: Sendable {
        let state = LockState()
        let keychain: Keychain
        let keyringStore: GuardedStore?
        let group: String

        init(_ backend: Backend) throws {
            let team = try TeamIdentifier(Backend.uniqueTeamID())
            let app = try AppIdentity(bundleID: "com.contoso.mail", teamID: team)
            group = app.accessGroupNames[0]
            let store: any ItemStore
            let provider: DeviceLockProvider = { [state] in state.value.withLock { $0 } }
            switch backend {
            case .memory:
                store = InMemoryStore(deviceLock: provider)
                keyringStore = nil
            default:
                let keyring = try TestKeyring.store(backend == .secretServiceSmallShards ? .smallShards : .collectionPerGroup) {
                    $0.deviceLock = provider
                }
                store = keyring
                keyringStore = keyring
            }
            keychain = Keychain(app: app, store: store)
        }

        /// Sets the lock as `device lock` / `reboot` / `unlock` do.
        func set(locked: Bool, unlockedSinceBoot: Bool) throws {
            let new = DeviceLockState(locked: locked, unlockedSinceBoot: unlockedSinceBoot)
            state.value.withLock { $0 = new }
            try keyringStore?.lockShards(of: new.lockedClasses, groups: [group])
        }

        func add(_ account: String, _ accessibility: Accessibility) throws {
            try keychain.add(NewItem(account: account, service: "s", data: Data(account.utf8), accessibility: accessibility))
        }

        func read(_ account: String) throws(KeychainError) -> Data {
            try keychain.first(KeychainQuery(account: account, service: "s")).data
        }
    }

    static let backends: [Backend] = [.memory, .secretServicePerGroup, .secretServiceSmallShards]

    static func isLocked(_ body: () throws -> Void) -> Bool {
        do { try body() } catch let error as KeychainError { return error.status == .interactionNotAllowed } catch { return false }
        return false
    }

    @Test("locked: whenUnlocked items fail with -25308, afterFirstUnlock and always work; reboot: only always works", arguments: backends)
    func lockMatrix(_ backend: Backend) throws {
        let rig = try Rig(backend)
        let classes: [(String, Accessibility)] = [
            ("unlocked", .whenUnlocked), ("passcode", .whenPasscodeSetThisDeviceOnly), ("first", .afterFirstUnlock),
            ("firstThisDevice", .afterFirstUnlockThisDeviceOnly), ("always", .always),
        ]
        for (account, accessibility) in classes { try rig.add(account, accessibility) }
        #expect(try rig.keychain.copyAll(.all(in: rig.group)).map(\.accessibility) == classes.map(\.1))

        try rig.set(locked: true, unlockedSinceBoot: true)
        for (account, accessibility) in classes {
            let protected = accessibility.protection == .untilUnlocked
            #expect(Self.isLocked { _ = try rig.read(account) } == protected, "read \(account) while locked")
            #expect(Self.isLocked { try rig.keychain.update(KeychainQuery(account: account), with: ItemChange(label: "x")) } == protected)
        }
        #expect(Self.isLocked { try rig.add("new", .whenUnlocked) })
        try rig.add("new-first", .afterFirstUnlock)
        #expect(Self.isLocked { _ = try rig.keychain.delete(KeychainQuery(account: "unlocked")) })
        // A list over a mix: never an answer with the protected items silently left out.
        #expect(Self.isLocked { _ = try rig.keychain.copyAll(.all(in: rig.group)) })
        #expect(try rig.keychain.delete(KeychainQuery(account: "new-first")) == 1)

        try rig.set(locked: true, unlockedSinceBoot: false)
        for (account, accessibility) in classes {
            #expect(Self.isLocked { _ = try rig.read(account) } == (accessibility.protection != .none), "read \(account) after reboot")
        }

        try rig.set(locked: false, unlockedSinceBoot: true)
        for (account, _) in classes { #expect(try rig.read(account) == Data(account.utf8)) }
        #expect(try rig.keychain.copyAll(.all(in: rig.group)).count == classes.count)
    }

    @Test("internet passwords and synchronizable twins obey the lock by their class", arguments: backends)
    func internetPasswordsAndTwinsObeyTheLock(_ backend: Backend) throws {
        let rig = try Rig(backend)
        var web = NewItem(internetAccount: .string("web"), InternetAttributes(server: "example.com"), data: Data("web".utf8))
        web.accessibility = .whenUnlocked
        try rig.keychain.add(web)
        var synced = NewItem(account: "first", service: "s", data: Data("synced".utf8), accessibility: .afterFirstUnlock, synchronizable: true)
        try rig.keychain.add(synced)
        synced.synchronizable = false
        synced.accessibility = .whenUnlocked
        try rig.keychain.add(synced)
        try rig.set(locked: true, unlockedSinceBoot: true)
        #expect(Self.isLocked { _ = try rig.keychain.first(.internet(account: .string("web"))) })
        let usable = KeychainQuery(account: "first", service: "s", filters: ItemQuery.Filters(synchronizable: true))
        #expect(try rig.keychain.first(usable).data == Data("synced".utf8))
        // Its local twin is protected: a query for both is refused, never answered with one.
        #expect(Self.isLocked { _ = try rig.keychain.copyAll(KeychainQuery(account: "first", service: "s")) })
        try rig.set(locked: false, unlockedSinceBoot: true)
        let all = try rig.keychain.copyAll(.all(in: rig.group))
        #expect(all.count == 3, "read \(all.map { "\($0.account) \($0.accessibility) synchronizable=\($0.synchronizable)" })")
    }
}
