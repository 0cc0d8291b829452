import Device
import Foundation
import Logging
import Mitigations
import SharedKeychain
import SuiteManifest
import Testing

/// Issue 28, item 1: one place resolves an app. The same app named each way (installed, a suite
/// entry, declared by team and entitlements, SecItem's environment) is the same app: the same
/// identity and settings, and a keychain from the one factory with the device's lock state,
/// authentication answer and the group's mitigation policy.
@Suite("One app, however it is named")
struct AppResolutionTests {
    static let examples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("examples")
    static let sharedGroup = "ABCDE12345.com.microsoft.adalcache"
    static let logger = Logger(label: "device-tests")

    /// A device with `example` installed, in a state directory of its own.
    struct Rig {
        let state: URL
        let device: Device
        let suite: Suite

        init(_ example: String = "suite") throws {
            state = FileManager.default.temporaryDirectory.appendingPathComponent("resolution-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
            device = Device(stateDirectory: state)
            suite = try SuiteManifest.load(from: AppResolutionTests.examples.appendingPathComponent(example))
            try device.install(suite)
        }

        /// An entitlements plist declaring what the suite gives `bundleID`.
        func entitlements(of bundleID: String) throws -> URL {
            let url = state.appendingPathComponent("\(bundleID).entitlements")
            try suite.app(bundleID: bundleID).entitlements.propertyListData().write(to: url)
            return url
        }

        /// Every way to name `bundleID`: installed, its suite entry, declared, the environment.
        func requests(for bundleID: String) throws -> [AppRequest] {
            let declared = AppRequest.declared(bundleID: bundleID, team: "ABCDE12345", entitlements: try entitlements(of: bundleID))
            let environment = try #require(AppRequest(environment: [
                "SHARED_KEYCHAIN_APP": bundleID, "SHARED_KEYCHAIN_TEAM": "ABCDE12345",
                "SHARED_KEYCHAIN_ENTITLEMENTS": try entitlements(of: bundleID).path,
            ]))
            return [.installed(bundleID: bundleID), .suiteEntry(bundleID: bundleID, suite: suite), declared, environment]
        }

        func remove() { try? FileManager.default.removeItem(at: state) }
    }

    @Test(arguments: ["suite", "suite-adal"])
    func everyWayOfNamingAnAppResolvesToTheSameIdentityAndSettings(_ example: String) throws {
        let rig = try Rig(example)
        defer { rig.remove() }
        for entry in rig.suite.apps {
            let resolved = try rig.requests(for: entry.bundleID).map { try rig.device.resolve($0) }
            for app in resolved {
                #expect(app.identity.teamID == resolved[0].identity.teamID)
                #expect(app.identity.accessGroupNames == resolved[0].identity.accessGroupNames)
                #expect(app.settings == entry.settings, "\(app.origin)")
                #expect(!app.isAdHoc)
            }
            #expect(resolved.map(\.origin) == [.installed, .suite(manifest: rig.suite.manifest.path), .installed, .installed])
        }
    }

    /// The drift of an installed ADAL app that lost its SDK unless `--suite` was passed again
    /// (fixed on main by issue 27, pinned here for every way of naming it).
    @Test func anInstalledADALAppIsADALHoweverItIsNamed() throws {
        let rig = try Rig("suite-adal")
        defer { rig.remove() }
        for request in try rig.requests(for: "com.myapp.mytestapp") {
            let app = try rig.device.resolve(request)
            #expect(app.settings?.sdk == .adal, "\(request)")
            #expect(app.settings?.tokenCacheConfiguration().sdk == .adal, "\(request)")
        }
    }

    /// One rule for every caller: a declaration for an installed app must be its identity,
    /// environment or options alike (SecItem's environment used to ignore the entitlements).
    @Test func aDeclarationOtherThanTheInstalledIdentityIsRefusedWhoeverMakesIt() throws {
        let rig = try Rig()
        defer { rig.remove() }
        let notes = try rig.entitlements(of: "com.contoso.notes")
        let declarations: [AppRequest] = [
            .declared(bundleID: "com.contoso.mail", team: "ABCDE12345", entitlements: notes),
            .declared(bundleID: "com.contoso.mail", team: "ABCDE12345", entitlements: nil),
            .declared(bundleID: "com.contoso.mail", team: "ZZZZZ99999", entitlements: try rig.entitlements(of: "com.contoso.mail")),
            try #require(AppRequest(environment: [
                "SHARED_KEYCHAIN_APP": "com.contoso.mail", "SHARED_KEYCHAIN_TEAM": "ABCDE12345", "SHARED_KEYCHAIN_ENTITLEMENTS": notes.path,
            ])),
        ]
        for request in declarations {
            let error = #expect(throws: DeviceError.self) { try rig.device.resolve(request) }
            guard case .identityMismatch(let bundleID, _, _) = error else {
                Issue.record("\(request): \(String(describing: error))")
                continue
            }
            #expect(bundleID == "com.contoso.mail")
        }
    }

    @Test func anAppTheDeviceDoesNotHaveIsAdHocOnlyWhenDeclared() throws {
        let rig = try Rig()
        defer { rig.remove() }
        let adHoc = try rig.device.resolve(.declared(bundleID: "com.fabrikam.tool", team: "ABCDE12345", entitlements: nil))
        #expect(adHoc.isAdHoc && adHoc.settings == nil && adHoc.installed == nil)
        #expect(adHoc.identity.accessGroupNames == ["ABCDE12345.com.fabrikam.tool"])
        #expect(throws: DeviceError.notInstalled("com.fabrikam.tool", installed: ["com.contoso.calendar", "com.contoso.mail", "com.contoso.notes"])) {
            try rig.device.resolve(.installed(bundleID: "com.fabrikam.tool"))
        }
        #expect(throws: DeviceError.accessGroup(.invalidTeamID("nope"))) {
            try rig.device.resolve(.declared(bundleID: "com.fabrikam.tool", team: "nope", entitlements: nil))
        }
        let unknown = #expect(throws: DeviceError.self) { try rig.device.resolve(.suiteEntry(bundleID: "com.fabrikam.tool", suite: rig.suite)) }
        #expect(unknown?.status == .param)
        if case .suite = unknown {} else { Issue.record("not a suite error: \(String(describing: unknown))") }
        #expect(AppRequest(environment: ["SHARED_KEYCHAIN_APP": ""]) == nil)
        #expect(AppRequest(environment: ["SHARED_KEYCHAIN_APP": "com.contoso.mail", "SHARED_KEYCHAIN_TEAM": ""]) == .installed(bundleID: "com.contoso.mail"))
    }

    @Test func thePolicyIsTheFileNamedElseTheStateDirectorysElseNone() throws {
        let rig = try Rig()
        defer { rig.remove() }
        #expect(try rig.device.mitigationPolicy() == .none)
        let stored = rig.state.appendingPathComponent("policy.json")
        try Data(#"{"groups": {"\#(Self.sharedGroup)": {"mitigations": ["audit"]}}}"#.utf8).write(to: stored)
        #expect(try rig.device.mitigationPolicy().policy(for: Self.sharedGroup)?.enables(.audit) == true)
        let named = rig.state.appendingPathComponent("other.json")
        try Data(#"{"groups": {}}"#.utf8).write(to: named)
        #expect(try rig.device.mitigationPolicy(file: named) == .none)
        let missing = #expect(throws: DeviceError.self) { try rig.device.mitigationPolicy(file: rig.state.appendingPathComponent("absent.json")) }
        #expect(missing?.message.contains("absent.json") == true)
        try Data("not json".utf8).write(to: stored)
        let broken = #expect(throws: DeviceError.self) { try rig.device.mitigationPolicy() }
        #expect(broken?.message.contains(stored.path) == true)
    }

    /// Every command and every SecItem call now reads the state directory's policy file: a FIFO
    /// another process made there is refused with the file named, and never blocks the caller
    /// waiting for a writer (Foundation's read refuses it).
    @Test func aStateDirectoryPolicyThatIsNotARegularFileIsRefusedWithoutBlocking() throws {
        let rig = try Rig()
        defer { rig.remove() }
        let stored = rig.state.appendingPathComponent(Device.policyFileName)
        #expect(mkfifo(stored.path, 0o600) == 0)
        let refused = #expect(throws: DeviceError.self) { try rig.device.mitigationPolicy() }
        #expect(refused?.message.contains(stored.path) == true)
    }

    /// The factory wires the device's lock state, its authentication answer (a mitigated view
    /// used to be made without it) and the group's policy into the keychain of every resolution.
    @Test func everyKeychainFromTheFactoryHasTheDevicesLockAnswerAndPolicy() throws {
        let rig = try Rig()
        defer { rig.remove() }
        try Data(#"{"groups": {"\#(Self.sharedGroup)": {"mitigations": ["audit", "guarded-delete"], "privileged": ["com.contoso.mail"]}}}"#.utf8)
            .write(to: rig.state.appendingPathComponent("policy.json"))
        let session = try rig.device.session(keyring: .memory, logger: Self.logger)
        #expect(session.policy.policy(for: Self.sharedGroup) != nil)
        let journal = AuditJournal(store: session.store)
        for (index, request) in try rig.requests(for: "com.contoso.calendar").enumerated() {
            let keychain = session.keychain(for: try rig.device.resolve(request))
            var guarded = NewItem(account: "guarded-\(index)", service: "s", group: Self.sharedGroup, data: Data("secret".utf8))
            guarded.accessControl = [.userPresence]
            try keychain.add(guarded)
            try keychain.add(NewItem(account: "locked-\(index)", service: "s", group: Self.sharedGroup, data: Data("x".utf8)))

            try rig.device.setAuthenticationDecision(.deny)
            let denied = #expect(throws: KeychainError.self) { try keychain.first(KeychainQuery(account: "guarded-\(index)")) }
            #expect(denied?.status == .authFailed, "\(request)")
            try rig.device.setAuthenticationDecision(.allow)

            try rig.device.lock(keyring: .memory, logger: Self.logger)
            let locked = #expect(throws: KeychainError.self) { try keychain.first(KeychainQuery(account: "locked-\(index)")) }
            #expect(locked?.status == .interactionNotAllowed, "\(request)")
            try rig.device.unlock()

            let before = try journal.entries(group: Self.sharedGroup).count
            #expect(try keychain.delete(KeychainQuery(account: "locked-\(index)")) == 1)
            #expect(try journal.entries(group: Self.sharedGroup).count == before + 1, "\(request): the audit mitigation journals the delete")
        }
    }

    @Test func lockingUnlockingAndRebootingAreWholeInTheDevice() throws {
        let rig = try Rig()
        defer { rig.remove() }
        #expect(try rig.device.lock(keyring: .memory, logger: Self.logger) == DeviceLockState(locked: true, unlockedSinceBoot: true))
        #expect(try rig.device.lockState() == DeviceLockState(locked: true, unlockedSinceBoot: true))
        #expect(try rig.device.unlock() == .unlocked)
        #expect(try rig.device.reboot(keyring: .memory, logger: Self.logger) == DeviceLockState(locked: true, unlockedSinceBoot: false))
        #expect(try rig.device.lockState() == DeviceLockState(locked: true, unlockedSinceBoot: false))
        // No private keyring runs in this state directory: nothing to signal.
        #expect(throws: DeviceError.keyringDaemonNotRunning) { try rig.device.signalKeyringDaemon(.stop, logger: Self.logger) }
    }
}
