import Foundation
import Hazards
import Mitigations
import KeychainTestSupport
import SecretServiceStorage
import SharedKeychain
import Synchronization
import Testing

/// Every built-in hazard: what the unmitigated run loses and to whom, what the mitigated run keeps.
@Suite("Hazard scenarios")
struct HazardScenarioTests {
    @Test(arguments: Backend.memoryAndKeyring)
    func wipeAllBreaksTheSignedInAppUnlessGuarded(_ backend: Backend) throws {
        let store = try backend.makeStore()
        let open = try Hazard.wipeAll.run(mitigated: false, on: store)
        // The group holds Mail's sign-in (account, access, ID, family and client refresh
        // tokens, app metadata, account metadata) and MSAL's team-ID probe, which the suite's
        // first app added there, its first access group (MSIDKeychainUtil.m appDefaultAccessGroup).
        let signInItems = 7
        let groupItems = signInItems + 1
        #expect(open.losses == [AppLoss(app: "com.contoso.mail", lost: groupItems, causedBy: ["com.contoso.calendar"])])
        #expect(open.metric("failed refreshes") == 3)
        #expect(open.metric("items deleted by com.contoso.calendar") == groupItems)
        #expect(open.steps.contains { $0.contains("interaction_required") })
        // The device's view: no wipe record (clearCacheForAllAccountsWithContext deletes it too);
        // the emulator's own record names Calendar.
        #expect(open.steps.contains { $0.contains("finds no wipe record: on a device a full wipe leaves no trace") && $0.contains("com.contoso.calendar deleted \(groupItems) items") })
        #expect(!open.steps.contains { $0.contains("last wiped by") })
        #expect(open.audit.isEmpty)

        let guarded = try Hazard.wipeAll.run(mitigated: true, on: store)
        #expect(guarded.losses.isEmpty)
        #expect(guarded.metric("failed refreshes") == 0)
        #expect(guarded.metric("refused deletes") == 1)
        #expect(guarded.steps.contains { $0.contains("errSecMissingEntitlement") && $0.contains("refused com.contoso.calendar deleting \(groupItems) of \(groupItems) items") })
        // The privileged wipe goes through; the snapshot brings back what it took.
        #expect(guarded.metric("items deleted by the privileged wipe") == groupItems)
        #expect(guarded.metric("failed refreshes after the privileged wipe") == 3)
        #expect(guarded.metric("items restored from the snapshot") == groupItems)
        #expect(guarded.metric("failed refreshes after the restore") == 0)
        let calendarEntries = guarded.audit.filter { $0.app == "com.contoso.calendar" }
        #expect(calendarEntries.map(\.outcome) == [.refused])
        #expect(calendarEntries.first?.itemCount == groupItems)
        #expect(calendarEntries.first?.creators == ["com.contoso.mail": groupItems])
        #expect(guarded.audit.contains { $0.app == "com.microsoft.azureauthenticator" && $0.outcome == .deleted && $0.itemCount == groupItems })
        // Nothing of the run is left in the store.
        let leftovers = try store.items(matching: ItemQuery(groups: guarded.groups + guarded.groups.map(AuditJournal.journalGroup(for:))), limit: nil)
        #expect(leftovers.isEmpty)
    }

    @Test func removeAccountFamilyIsPreventedForTheLastWriterOnly() throws {
        let store = InMemoryStore()
        let open = try Hazard.removeAccountFamily.run(mitigated: false, on: store)
        #expect(open.metric("failed silent acquires") == 2)
        // Calendar deleted the family token Mail had created, and its own three credentials;
        // Mail then deleted bob's four.
        #expect(Set(open.losses) == [
            AppLoss(app: "com.contoso.mail", lost: 1, causedBy: ["com.contoso.calendar"]),
            AppLoss(app: "com.contoso.calendar", lost: 3, causedBy: ["com.contoso.calendar"]),
            AppLoss(app: "com.contoso.mail", lost: 4, causedBy: ["com.contoso.mail"]),
        ])

        let guarded = try Hazard.removeAccountFamily.run(mitigated: true, on: store)
        // Calendar is refused the family token it did not create; Mail, its creator, is not.
        #expect(guarded.metric("failed silent acquires") == 1)
        #expect(guarded.metric("refused removes") == 1)
        #expect(guarded.steps.contains { $0.contains("chat.read' for alice@contoso.com silently: ok (family_refresh_token)") })
        #expect(guarded.steps.contains { $0.contains("for bob@contoso.com silently: interaction_required") })
        #expect(guarded.audit.contains { $0.app == "com.contoso.calendar" && $0.outcome == .refused })
        #expect(!guarded.limits.isEmpty)
    }

    @Test func ungroupedDeleteEmptiesEveryGroupUnlessGuarded() throws {
        let store = InMemoryStore()
        let open = try Hazard.ungroupedDelete.run(mitigated: false, on: store)
        // Mail's 3 items and Calendar's 2 in the shared groups; Calendar's app ID group is out of reach.
        #expect(open.metric("items deleted by com.contoso.mail") == 5)
        #expect(open.losses.contains(AppLoss(app: "com.contoso.calendar", lost: 2, causedBy: ["com.contoso.mail"])))

        let guarded = try Hazard.ungroupedDelete.run(mitigated: true, on: store)
        #expect(guarded.metric("items of com.contoso.calendar lost") == 0)
        #expect(guarded.metric("refused deletes") == 1)
        // Only Mail's own app ID group item, deleted by a scoped delete afterwards.
        #expect(guarded.losses == [AppLoss(app: "com.contoso.mail", lost: 1, causedBy: ["com.contoso.mail"])])
        #expect(guarded.audit.filter { $0.outcome == .refused }.count == 2)
    }

    @Test func probeClobberFailsSelfTestsUnlessProbesArePerApp() throws {
        let store = InMemoryStore()
        let open = try Hazard.probeClobber.run(mitigated: false, on: store)
        #expect((open.metric("failed self-tests") ?? 0) > 0)
        #expect(open.losses.allSatisfy { $0.unit == "probes" && !$0.causedBy.isEmpty })
        let guarded = try Hazard.probeClobber.run(mitigated: true, on: store)
        #expect(guarded.metric("failed self-tests") == 0)
        #expect(guarded.losses.isEmpty)
    }

    @Test func lostUpdateLosesIncrementsUnlessWritesAreCompareAndSwap() throws {
        let store = InMemoryStore()
        let open = try Hazard.lostUpdate.run(mitigated: false, on: store)
        #expect(open.metric("expected count") == 40)
        #expect((open.metric("lost updates") ?? 0) > 0)
        #expect(open.losses.allSatisfy { $0.unit == "updates" })
        let guarded = try Hazard.lostUpdate.run(mitigated: true, on: store)
        #expect(guarded.metric("final count") == 40)
        #expect(guarded.metric("lost updates") == 0)
        #expect(guarded.mitigations == ["compare-and-swap"])
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
    func everyHazardComparesWithoutPrintingSecrets(_ backend: Backend) throws {
        let device = TestDevice()
        let store = try device.store(backend)
        for hazard in Hazard.allCases {
            let comparison = try hazard.compare(on: store, device: device)
            #expect(!comparison.unmitigated.mitigated)
            #expect(comparison.mitigated.mitigated)
            #expect(!comparison.unmitigated.verdict.isEmpty && !comparison.mitigated.verdict.isEmpty)
            #expect(!comparison.unmitigated.losses.isEmpty, "\(hazard) lost nothing unmitigated")
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            let json = String(decoding: try encoder.encode(comparison), as: UTF8.self)
            #expect(!json.contains("emulated-access-token.") && !json.contains("emulated-refresh-token."))
            // The run's items and journals are gone.
            let groups = comparison.unmitigated.groups + comparison.mitigated.groups
            let left = try store.items(matching: ItemQuery(groups: groups + groups.map(AuditJournal.journalGroup(for:))), limit: nil)
            #expect(left.isEmpty, "\(hazard) left \(left.count) items")
        }
        #expect(try Hazard.probeClobber.run(mitigated: true, on: store).metric("failed self-tests") == 0)
        #expect(try Hazard.lostUpdate.run(mitigated: true, on: store).metric("lost updates") == 0)
    }
}

/// A device whose lock lives in memory: stores made with ``provider`` obey it.
final class TestDevice: DeviceControl {
    private let state = Mutex(DeviceLockState.unlocked)
    var provider: DeviceLockProvider { { [self] in state.withLock { $0 } } }
    func setLock(_ new: DeviceLockState) { state.withLock { $0 = new } }
    var current: DeviceLockState { state.withLock { $0 } }

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
    func backgroundRefreshWhileLockedFailsUnlessTokensAreAfterFirstUnlock(_ backend: Backend) throws {
        let device = TestDevice()
        let store = try device.store(backend)
        let open = try Hazard.lockedDevice.run(mitigated: false, on: store, device: device)
        #expect(open.losses == [AppLoss(app: "com.contoso.mail", lost: 3, unit: "background refreshes", causedBy: ["the device lock"])])
        #expect(open.metric("failed while locked") == 3)
        #expect(open.steps.contains { $0.contains("errSecInteractionNotAllowed (-25308)") })
        #expect(device.current == .unlocked)

        let mitigated = try Hazard.lockedDevice.run(mitigated: true, on: store, device: device)
        #expect(mitigated.losses.isEmpty)
        #expect(mitigated.metric("failed while locked") == 0)
        #expect(throws: HazardError.self) { try Hazard.lockedDevice.run(mitigated: false, on: store) }
    }
}

@Suite("Hazard: broker spoofing")
struct BrokerSpoofHazardTests {
    @Test(arguments: Backend.memoryAndKeyring)
    func theBrokerRefusesSpoofingButTheSharedGroupNeedsNone(_ backend: Backend) throws {
        let store = try backend.makeStore()
        let open = try Hazard.brokerSpoof.run(mitigated: false, on: store)
        #expect(open.steps.contains { $0.contains("refused, errSecAuthFailed") && $0.contains("belongs to com.contoso.mail") })
        #expect(open.steps.contains { $0.contains("from its cache: ok (family_refresh_token), no broker, no check") })
        #expect(open.losses == [AppLoss(app: "com.contoso.mail", lost: 1, unit: "signed-in accounts", causedBy: ["com.contoso.calendar"])])

        let mitigated = try Hazard.brokerSpoof.run(mitigated: true, on: store)
        #expect(mitigated.losses.isEmpty)
        #expect(mitigated.metric("tokens taken without the broker's check") == 0)
        #expect(mitigated.steps.contains { $0.contains("single sign-on without a prompt, checked by the broker") })
    }
}
