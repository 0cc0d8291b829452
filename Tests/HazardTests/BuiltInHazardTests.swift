import Foundation
import Hazards
import Mitigations
import KeychainTestSupport
import SecretServiceStorage
import SharedKeychain
import Simulation
import Synchronization
import Testing

/// Every built-in hazard: what the unmitigated run loses and to whom, what the mitigated run keeps.
@Suite("Built-in hazards")
struct BuiltInHazardTests {
    @Test(arguments: Backend.memoryAndKeyring)
    func wipeAllLeavesAnEmptyGroupAndNoClueOnTheDevice(_ backend: Backend) throws {
        let store = try backend.makeStore()
        let open = try Hazard.wipeAll.run(.unmitigated, on: store)
        let wiped = try #require(open.metric("items deleted by com.contoso.calendar"))
        // The group holds Mail's sign-in (account, access, ID, family and client refresh tokens,
        // app metadata, account metadata) and MSAL's team-ID probe, which the suite's first app
        // added there, its first access group (MSIDKeychainUtil.m appDefaultAccessGroup).
        #expect(wiped == 7 + 1)
        // The device's view: the group is empty, no wipe record, Mail's refreshes need interaction.
        #expect(open.metric("items left in the group") == 0)
        #expect(open.metric("wipe records in the group") == 0)
        #expect(open.metric("failed refreshes") == 3)
        #expect(open.deviceView.filter { $0.contains("interaction_required") }.count == 3)
        #expect(open.deviceView.contains { $0.contains("the group is empty") && $0.contains("no wipe record") })
        #expect(open.deviceView.contains { $0.contains("nothing on the device says which app wiped the group") })
        // No line of the device's view rests on provenance, nor names a wipe record's app.
        #expect(!open.deviceView.contains { $0.contains("created by") || $0.contains("last wiped by") })
        // The emulator's view names Calendar, labelled as its own record.
        #expect(open.emulatorView.label == "recorded by the emulator; a device keeps none")
        #expect(open.emulatorView.lines.contains { $0.contains("com.contoso.calendar deleted \(wiped) items, added by com.contoso.mail \(wiped)") })
        #expect(open.losses == [AppLoss(app: "com.contoso.mail", lost: wiped, causedBy: ["com.contoso.calendar"])])
        #expect(open.audit.isEmpty)

        // Deployable: per-app groups and the broker; Calendar's sign-out reaches only its group.
        let fixed = try Hazard.wipeAll.run(.deployable, on: store)
        #expect(fixed.mitigations.allSatisfy { $0.scope == .deployable && $0.label == "in your apps, deployable on iOS" })
        #expect(fixed.groups.count == 2 && !fixed.groups.contains { $0.hasSuffix(".com.microsoft.adalcache") })
        #expect(fixed.metric("failed refreshes") == 0)
        #expect(fixed.losses.isEmpty)
        #expect(fixed.deviceView.contains { $0.contains("removeAccount") })

        let guarded = try Hazard.wipeAll.run(.whatIf, on: store)
        #expect(guarded.mitigations.allSatisfy { $0.scope == .whatIf && $0.label == "emulator only: what if the keychain had it" })
        #expect(guarded.losses.isEmpty)
        #expect(guarded.metric("failed refreshes") == 0)
        #expect(guarded.metric("refused deletes") == 1)
        #expect(guarded.deviceView.contains { $0.contains("errSecMissingEntitlement") && $0.contains("refused com.contoso.calendar deleting \(wiped) of \(wiped) items") })
        // The privileged wipe goes through; the snapshot brings back what it took.
        #expect(guarded.metric("items deleted by the privileged wipe") == wiped)
        #expect(guarded.metric("failed refreshes after the privileged wipe") == 3)
        #expect(guarded.metric("items restored from the snapshot") == wiped)
        #expect(guarded.metric("failed refreshes after the restore") == 0)
        #expect(guarded.emulatorView.lines.contains { $0.hasPrefix("snapshot restored") })
        let calendarEntries = guarded.audit.filter { $0.app == "com.contoso.calendar" }
        #expect(calendarEntries.map(\.outcome) == [.refused])
        #expect(calendarEntries.first?.itemCount == wiped)
        #expect(calendarEntries.first?.addedBy == ["com.contoso.mail": wiped])
        #expect(guarded.audit.contains { $0.app == "com.microsoft.azureauthenticator" && $0.outcome == .deleted && $0.itemCount == wiped })
        // Nothing of the runs is left in the store.
        let groups = open.groups + fixed.groups + guarded.groups
        let leftovers = try store.items(matching: ItemQuery(groups: groups + groups.map(AuditJournal.journalGroup(for:))), limit: nil)
        #expect(leftovers.isEmpty)
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func removeAccountFamilyTakesTheSiblingsAccountInBothModesUnlessGroupsArePerApp(_ backend: Backend) throws {
        let store = try backend.makeStore()
        let open = try Hazard.removeAccountFamily.run(.unmitigated, on: store)
        #expect(open.metric("silent acquires by com.contoso.teams") == 4)
        #expect(open.metric("failed silent acquires") == 4)
        // One team per mode; the account lists as MSAL computes them, in each mode.
        #expect(open.groups.count == 2)
        for mode in ["classic mode", "single-FRT mode"] {
            #expect(open.deviceView.contains { $0.hasPrefix("\(mode), case 1") })
        }
        #expect(open.deviceView.contains { $0.contains("single-FRT mode") && $0.contains("type 2008") })
        // Teams listed alice through the family token before, and no account after, in both modes;
        // Mail, whose own refresh token stays, still lists her.
        #expect(open.deviceView.filter { $0 == "com.contoso.teams lists alice@contoso.com; it never signed in itself" }.count == 2)
        #expect(open.deviceView.filter { $0 == "after the removal com.contoso.teams lists no account; com.contoso.mail lists alice@contoso.com" }.count == 2)
        // The emulator knows Mail created the family token; the device knows only its last writer.
        #expect(open.emulatorView.lines.filter { $0.contains("created by com.contoso.mail") && $0.contains("last writer, com.contoso.calendar") }.count == 2)
        #expect(open.losses.contains { $0.app == "com.contoso.mail" && $0.causedBy == ["com.contoso.calendar"] })

        let fixed = try Hazard.removeAccountFamily.run(.deployable, on: store)
        #expect(fixed.metric("failed silent acquires") == 0)
        #expect(fixed.losses.isEmpty)
        #expect(fixed.deviceView.contains { $0.hasPrefix("after the removal com.contoso.teams lists alice@contoso.com") && $0.hasSuffix("com.contoso.calendar lists no account") })

        let guarded = try Hazard.removeAccountFamily.run(.whatIf, on: store)
        // Calendar is refused the family token it did not create; Mail, its creator, is not.
        #expect(guarded.metric("failed silent acquires") == 2)
        #expect(guarded.metric("refused removes") == 2)
        #expect(guarded.deviceView.contains { $0.contains("chat.read' for alice@contoso.com silently: ok (family_refresh_token)") })
        #expect(guarded.deviceView.contains { $0.contains("for bob@contoso.com silently: interaction_required") })
        #expect(guarded.audit.contains { $0.app == "com.contoso.calendar" && $0.outcome == .refused })
        #expect(!guarded.limits.isEmpty)
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func theAccountMetadataRaceBringsARemovedAccountBackUntilTheAppChecksAgain(_ backend: Backend) throws {
        let store = try backend.makeStore()
        let open = try Hazard.accountMetadataRace.run(.unmitigated, on: store)
        // The device's view: Calendar removed alice and listed no account, then lists her again.
        #expect(open.deviceView.contains { $0.contains("com.contoso.calendar removes alice@contoso.com at the same moment") && $0.hasSuffix("it lists no account") })
        #expect(open.deviceView.contains { $0.hasPrefix("com.contoso.calendar lists alice@contoso.com, bob@contoso.com") && $0.contains("is back") })
        #expect(open.metric("removed accounts listed again") == 1)
        // Only the emulator knows whose write undid Calendar's signed_out.
        #expect(open.emulatorView.lines.contains { $0.contains("type 5001") && $0.contains("before com.contoso.calendar wrote signed_out") })
        #expect(open.losses == [AppLoss(app: "com.contoso.calendar", lost: 1, unit: "sign-in states", causedBy: ["com.contoso.mail"])])
        #expect(!open.deviceView.contains { $0.contains("type 5001") })

        let fixed = try Hazard.accountMetadataRace.run(.deployable, on: store)
        #expect(fixed.metric("removed accounts listed again") == 1)
        #expect(fixed.metric("removed accounts listed after the retry") == 0)
        #expect(fixed.deviceView.last?.hasSuffix("it lists bob@contoso.com") == true)
        #expect(throws: HazardError.self) { try Hazard.accountMetadataRace.run(.whatIf, on: store) }
    }

    /// IdentityCore `MSIDKeychainTokenCache.m` `saveData` (one update, one add) and
    /// `MSIDDefaultTokenCacheAccessor.m` `saveTokensWithConfiguration` (stops at the failed
    /// item): Calendar's add of the family refresh token between Mail's update and add ends
    /// Mail's save; Mail gets its token (`validateAndSaveTokenResponse`), and its own refresh
    /// token and app metadata are missing until a forced refresh writes them.
    @Test(arguments: Backend.memoryAndKeyring)
    func saveDataRaceOnTheFamilyTokenLeavesAPartialSaveUntilARefresh(_ backend: Backend) throws {
        let store = try backend.makeStore()
        let open = try Hazard.firstSignInRace.run(.unmitigated, on: store)
        #expect(open.metric("partial saves") == 1)
        #expect(open.metric("items of the response missing") == 2)
        #expect(open.deviceView.contains { $0.hasPrefix("com.contoso.mail's sign-in returns its token: save failed") && $0.contains("SecItemAdd {type 2002} errSecDuplicateItem (-25299)") })
        #expect(open.deviceView.contains { $0.hasSuffix("its own refresh token, its app metadata") })
        #expect(open.deviceView.contains { $0.contains("com.contoso.calendar signs alice@contoso.com in at the same moment: saved every item") })
        #expect(open.deviceView.contains { $0.hasPrefix("com.contoso.mail lists alice@contoso.com; com.contoso.calendar lists alice@contoso.com") })
        #expect(open.losses == [AppLoss(app: "com.contoso.mail", lost: 2, unit: "items of its response never written", causedBy: ["com.contoso.calendar"])])
        #expect(open.emulatorView.lines.contains { $0.contains("refreshtoken-1--") })

        let fixed = try Hazard.firstSignInRace.run(.deployable, on: store)
        #expect(fixed.metric("partial saves") == 1)
        #expect(fixed.metric("items missing after the refresh") == 0)
        #expect(fixed.deviceView.last?.contains("a token from family_refresh_token") == true)
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func anMSALAppsRemoveAccountTakesTheADALAppsTokensAndOnlyTheFamilyCopySurvives(_ backend: Backend) throws {
        let store = try backend.makeStore()
        let open = try Hazard.adalMSALSSO.run(.unmitigated, on: store)
        // One team with a family, one without.
        #expect(open.groups.count == 2)
        // The device's view: single sign-on from the ADAL sign-in, in both cases.
        #expect(open.deviceView.filter { $0.contains("com.contoso.mail (MSAL, the same client ID) lists alice@contoso.com and acquires silently: ok") }.count == 2)
        // Mail's removeAccount takes the ADAL app's items of the client ID; the foci copy stays.
        #expect(open.deviceView.contains { $0.contains("removeAccount") && $0.hasSuffix("legacy items left: 1 of client foci-1") })
        #expect(open.deviceView.contains { $0.contains("removeAccount") && $0.hasSuffix("legacy items left: none") })
        #expect(open.metric("ADAL legacy items deleted by com.contoso.mail") == 4)
        // Afterwards: through the family copy the ADAL app refreshes; without a family it needs the user,
        // and the wipe record any app can read names Mail.
        #expect(open.deviceView.contains { $0 == "com.contoso.expenses (ADAL) acquires silently for alice@contoso.com: ok (family_refresh_token)" })
        #expect(open.deviceView.contains { $0.hasPrefix("com.contoso.expenses (ADAL) acquires silently for alice@contoso.com: interaction_required") && $0.contains("last wiped by com.contoso.mail") })
        #expect(open.metric("silent acquires by com.contoso.expenses") == 2)
        #expect(open.metric("failed silent acquires") == 1)
        // Mail stays signed out even after the ADAL app's refresh: its signed_out stands, so
        // neither its list nor its silent call brings alice back.
        #expect(open.deviceView.filter { $0.hasPrefix("after it com.contoso.mail lists no account; com.contoso.mail acquires silently for alice@contoso.com: interaction_required") && $0.contains("signed out") }.count == 2)
        // Only the emulator knows the deleted items were the ADAL app's.
        #expect(open.losses.map(\.app) == ["com.contoso.expenses"] && open.losses.first?.causedBy == ["com.contoso.mail"])
        #expect(!open.deviceView.contains { $0.contains("had added") })

        let fixed = try Hazard.adalMSALSSO.run(.deployable, on: store)
        #expect(fixed.groups.count == 2 && !fixed.groups.contains { $0.hasSuffix(".com.microsoft.adalcache") })
        #expect(fixed.metric("ADAL legacy items deleted by com.contoso.mail") == 0)
        #expect(fixed.metric("failed silent acquires") == 0)
        #expect(fixed.losses.isEmpty)
        #expect(fixed.deviceView.contains { $0.contains("through the broker") })

        let guarded = try Hazard.adalMSALSSO.run(.whatIf, on: store)
        #expect(guarded.metric("refused removes") == 2)
        #expect(guarded.metric("failed silent acquires") == 0)
        #expect(guarded.audit.filter { $0.app == "com.contoso.mail" && $0.outcome == .refused }.count == 2)
        #expect(!guarded.limits.isEmpty)
    }

    @Test func ungroupedDeleteEmptiesEveryGroupUnlessScopedOrGuarded() throws {
        let store = InMemoryStore()
        let open = try Hazard.ungroupedDelete.run(.unmitigated, on: store)
        // Mail's 3 items and Calendar's 2 in the shared groups; Calendar's app ID group is out of reach.
        #expect(open.metric("items deleted by com.contoso.mail") == 5)
        #expect(open.losses.contains(AppLoss(app: "com.contoso.calendar", lost: 2, causedBy: ["com.contoso.mail"])))
        #expect(open.deviceView.contains { $0.contains("com.contoso.calendar reads its settings in the shared groups: 0 of 2 found") })

        let scoped = try Hazard.ungroupedDelete.run(.deployable, on: store)
        #expect(scoped.metric("items of com.contoso.calendar lost") == 0)
        #expect(scoped.deviceView.contains { $0.contains("reads its settings in the shared groups: 2 of 2 found") })

        let guarded = try Hazard.ungroupedDelete.run(.whatIf, on: store)
        #expect(guarded.metric("items of com.contoso.calendar lost") == 0)
        #expect(guarded.metric("refused deletes") == 1)
        // Only Mail's own app ID group item, deleted by a scoped delete afterwards.
        #expect(guarded.losses == [AppLoss(app: "com.contoso.mail", lost: 1, causedBy: ["com.contoso.mail"])])
        #expect(guarded.audit.filter { $0.outcome == .refused }.count == 2)
    }

    @Test func probeClobberFailsSelfTestsUnlessProbesArePerApp() throws {
        let store = InMemoryStore()
        let open = try Hazard.probeClobber.run(.unmitigated, on: store)
        #expect((open.metric("failed self-tests") ?? 0) > 0)
        #expect(open.losses.allSatisfy { $0.unit == "probes" && !$0.causedBy.isEmpty })
        let guarded = try Hazard.probeClobber.run(.deployable, on: store)
        #expect(guarded.metric("failed self-tests") == 0)
        #expect(guarded.losses.isEmpty)
    }

    @Test func lostUpdateLosesIncrementsUnlessWritesAreCompareAndSwap() throws {
        let store = InMemoryStore()
        let open = try Hazard.lostUpdate.run(.unmitigated, on: store)
        #expect(open.metric("expected count") == 40)
        #expect((open.metric("lost updates") ?? 0) > 0)
        #expect(open.losses.allSatisfy { $0.unit == "updates" })
        // Compare-and-swap is the emulator's: there is no deployable run.
        #expect(throws: HazardError.self) { try Hazard.lostUpdate.run(.deployable, on: store) }
        let guarded = try Hazard.lostUpdate.run(.whatIf, on: store)
        #expect(guarded.metric("final count") == 40)
        #expect(guarded.metric("lost updates") == 0)
        #expect(guarded.mitigations.map(\.scope) == [.whatIf])
        #expect(guarded.metric("retried writes") != nil)
    }

    /// The case: 8 apps x 50 increments of one counter item. Plain updates lose some;
    /// compare-and-swap with retry keeps every one.
    @Test(arguments: [(Backend.memory, 50), (Backend.secretServicePerGroup, 10)])
    func eightAppsIncrementingOneCounterKeepEveryIncrementWithCompareAndSwap(_ backend: Backend, increments: Int) throws {
        let store = try backend.makeStore()
        let team = try TeamIdentifier(Backend.uniqueTeamID())
        let group = "\(team.rawValue).com.contoso.counters"
        let apps = try (0..<8).map { index in
            Keychain(app: try AppIdentity(bundleID: "com.contoso.app\(index)", teamID: team,
                                          keychainAccessGroups: [AccessGroup(group)]), store: store)
        }
        let query = KeychainQuery(group: group, account: "counter", service: "counter")
        try apps[0].add(NewItem(account: "counter", service: "counter", group: group, data: Data("0".utf8)))
        let failures = Mutex<[KeychainError]>([])
        DispatchQueue.concurrentPerform(iterations: apps.count) { index in
            do throws(KeychainError) {
                for _ in 0..<increments {
                    while true {
                        let item = try apps[index].first(query)
                        let next = (Int(String(decoding: item.data, as: UTF8.self)) ?? 0) + 1
                        do throws(KeychainError) {
                            try apps[index].update(query, with: ItemChange(data: Data(String(next).utf8), ifVersion: item.version))
                            break
                        } catch where error.status == .versionConflict {
                            continue
                        }
                    }
                }
            } catch {
                failures.withLock { $0.append(error) }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let final = try apps[0].first(query)
        #expect(String(decoding: final.data, as: UTF8.self) == String(apps.count * increments))
        #expect(final.version == UInt64(apps.count * increments + 1))
        try apps[0].delete(KeychainQuery(group: group))
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func everyHazardRunsEachVariantWithBothViewsAndWithoutPrintingSecrets(_ backend: Backend) throws {
        let device = TestDevice()
        let store = try device.store(backend)
        for hazard in Hazard.allCases {
            let comparison = try hazard.compare(on: store, device: device, whatIf: true)
            #expect(comparison.runs.map(\.variant) == hazard.variants(whatIf: true))
            #expect(comparison.runs.first?.variant == .unmitigated)
            #expect(comparison.runs.count >= 2, "\(hazard) has no mitigated run")
            for report in comparison.runs {
                #expect(report.hazard == hazard.rawValue)
                #expect(report.mitigations.allSatisfy { $0.scope == report.variant.scope && $0.label == $0.scope.label })
                #expect(report.mitigated == !report.mitigations.isEmpty)
                #expect(!report.deviceView.isEmpty && !report.verdict.isEmpty)
                #expect(report.emulatorView.label == EmulatorView.label)
            }
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            let json = String(decoding: try encoder.encode(comparison), as: UTF8.self)
            #expect(!json.contains("emulated-access-token.") && !json.contains("emulated-refresh-token."))
            // The run's items and journals are gone.
            let groups = comparison.runs.flatMap(\.groups)
            let left = try store.items(matching: ItemQuery(groups: groups + groups.map(AuditJournal.journalGroup(for:))), limit: nil)
            #expect(left.isEmpty, "\(hazard) left \(left.count) items")
        }
        #expect(try Hazard.probeClobber.run(.deployable, on: store).metric("failed self-tests") == 0)
        #expect(try Hazard.lostUpdate.run(.whatIf, on: store).metric("lost updates") == 0)
    }
}

/// A device whose lock lives in memory: stores made with ``provider`` obey it. It keeps every
/// state it was put in, so a test can see the reboot a hazard made.
final class TestDevice: DeviceControl {
    private let state = Mutex((current: DeviceLockState.unlocked, history: [DeviceLockState]()))
    var provider: DeviceLockProvider { { [self] in state.withLock { $0.current } } }
    func setLock(_ new: DeviceLockState) { state.withLock { $0.current = new; $0.history.append(new) } }
    func refusal(of action: DeviceAction) -> String? { nil }

    /// What the `device` commands do to the lock; a daemon this device does not have.
    func perform(_ action: DeviceAction) throws -> String {
        switch action {
        case .lock: setLock(DeviceLockState(locked: true, unlockedSinceBoot: current.unlockedSinceBoot))
        case .unlock: setLock(.unlocked)
        case .reboot: setLock(DeviceLockState(locked: true, unlockedSinceBoot: false))
        case .killDaemon, .stopDaemon, .resumeDaemon: throw HazardError.needsDevice(.lockedDevice)
        }
        return "\(action)"
    }
    var current: DeviceLockState { state.withLock { $0.current } }
    func lockState() -> DeviceLockState { current }
    var history: [DeviceLockState] { state.withLock { $0.history } }

    /// A store on `backend` that obeys this device.
    func store(_ backend: Backend) throws -> any ItemStore {
        switch backend {
        case .memory:
            return InMemoryStore(deviceLock: provider)
        default:
            // Guarded: another test's daemon restart must wait for each operation, not hit it.
            return try TestKeyring.store(.collectionPerGroup) { $0.deviceLock = provider }
        }
    }
}

@Suite("Hazard: locked device")
struct LockedDeviceHazardTests {
    @Test(arguments: Backend.memoryAndKeyring)
    func aBackgroundLaunchBeforeTheFirstUnlockAndOwnWhenUnlockedItemsFail(_ backend: Backend) throws {
        let device = TestDevice()
        let store = try device.store(backend)
        let open = try Hazard.lockedDevice.run(.unmitigated, on: store, device: device)
        // Case 1 ran in the reboot window: locked, not unlocked since boot.
        #expect(device.history.contains(DeviceLockState(locked: true, unlockedSinceBoot: false)))
        #expect(device.history.contains(DeviceLockState(locked: true, unlockedSinceBoot: true)))
        #expect(open.metric("failed before the first unlock") == 1)
        // MSAL's class is readable while locked once the phone was unlocked since boot.
        #expect(open.metric("refreshes while locked after the first unlock failed") == 0)
        // The app's own whenUnlocked item is not.
        #expect(open.metric("own whenUnlocked reads while locked failed") == 1)
        #expect(open.deviceView.filter { $0.contains("errSecInteractionNotAllowed (-25308)") }.count == 2)
        #expect(device.current == .unlocked)

        let fixed = try Hazard.lockedDevice.run(.deployable, on: store, device: device)
        #expect(fixed.metric("failed before the first unlock") == 0)
        #expect(fixed.metric("deferred until the first unlock") == 1)
        #expect(fixed.metric("own whenUnlocked reads while locked failed") == 0)
        #expect(fixed.deviceView.contains { $0 == "com.contoso.mail's deferred refresh: ok" })
        #expect(throws: HazardError.self) { try Hazard.lockedDevice.run(.unmitigated, on: store) }
    }
}

@Suite("Hazard: broker spoofing")
struct BrokerSpoofHazardTests {
    @Test(arguments: Backend.memoryAndKeyring)
    func theBrokerRefusesSpoofingButTheSharedGroupNeedsNone(_ backend: Backend) throws {
        let store = try backend.makeStore()
        let open = try Hazard.brokerSpoof.run(.unmitigated, on: store)
        #expect(open.deviceView.contains { $0.contains("refused, errSecAuthFailed") && $0.contains("belongs to com.contoso.mail") })
        #expect(open.deviceView.contains { $0.contains("from its cache: ok (family_refresh_token), no broker, no check") })
        #expect(open.losses == [AppLoss(app: "com.contoso.mail", lost: 1, unit: "signed-in accounts", causedBy: ["com.contoso.calendar"])])

        let mitigated = try Hazard.brokerSpoof.run(.deployable, on: store)
        #expect(mitigated.losses.isEmpty)
        #expect(mitigated.metric("tokens taken without the broker's check") == 0)
        #expect(mitigated.deviceView.contains { $0.contains("single sign-on without a prompt, checked by the broker") })
    }

    /// MSIDBrokerKeyProvider deleteSymmetricKeyWithError in one app of the group, then
    /// MSIDBrokerResponseHandler in the others: MSIDErrorBrokerResponseDecryptionFailed for each.
    @Test(arguments: Backend.memoryAndKeyring)
    func deletingTheGroupsBrokerKeyBreaksEveryWaitingAppsResponse(_ backend: Backend) throws {
        let store = try backend.makeStore()
        let open = try Hazard.brokerKeyDelete.run(.unmitigated, on: store)
        #expect(open.metric("broker keys deleted") == 1)
        #expect(open.metric("brokered responses that cannot be decrypted") == 2)
        #expect(open.losses.map(\.app) == ["com.contoso.mail", "com.contoso.calendar"])
        #expect(open.deviceView.filter { $0.contains("MSIDErrorBrokerResponseDecryptionFailed: Failed to decrypt broker message") }.count == 2)

        let mitigated = try Hazard.brokerKeyDelete.run(.deployable, on: store)
        #expect(mitigated.losses.isEmpty)
        #expect(mitigated.metric("brokered responses that cannot be decrypted") == 0)
        #expect(mitigated.deviceView.filter { $0.hasSuffix("takes the broker's answer: signed in") }.count == 2)
    }
}
