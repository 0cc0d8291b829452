import Device
import Foundation
import Logging
import SharedKeychain
import Testing

/// Issue 30, point 4: faults on demand. A device's fault plan, kept in its state directory,
/// fails chosen SecItem calls of every keychain made on the device with a chosen status; its
/// counts hold across every reader of the plan.
@Suite("The device's fault plan")
struct FaultPlanTests {
    static let logger = Logger(label: "fault-plan-tests")
    static let team = "ABCDE12345"
    static let shared = "ABCDE12345.com.contoso.shared"

    /// A device in a state directory of its own, and an ad-hoc Mail entitled to the shared group.
    struct Rig {
        let state: URL
        let device: Device
        let mail: ResolvedApp

        init() throws {
            state = FileManager.default.temporaryDirectory.appendingPathComponent("faults-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
            device = Device(stateDirectory: state)
            let teamID = try TeamIdentifier(FaultPlanTests.team)
            let identity = try AppIdentity(
                bundleID: "com.contoso.mail", teamID: teamID,
                keychainAccessGroups: [try AccessGroup(teamID: teamID, identifier: "com.contoso.shared")])
            mail = ResolvedApp(identity: identity, settings: nil, origin: .adHoc)
        }

        /// Mail's keychain from the device's one factory, on a memory store.
        func keychain() throws -> Keychain {
            try device.session(keyring: .memory, logger: FaultPlanTests.logger).keychain(for: mail)
        }

        func remove() { try? FileManager.default.removeItem(at: state) }
    }

    @Test func aCountOfOneFailsTheFirstReadWithTheRulesStatusAndNothingElse() throws {
        let rig = try Rig()
        defer { rig.remove() }
        let keychain = try rig.keychain()
        try keychain.add(NewItem(account: "alice", service: "rt", data: Data("t".utf8)))
        try rig.device.faultPlan.add(try FaultRule(call: "SecItemCopyMatching", status: "errSecInteractionNotAllowed", count: 1))
        let first = #expect(throws: KeychainError.self) { try keychain.first(.init(account: "alice")) }
        #expect(first?.status == .interactionNotAllowed)
        #expect(first?.injectedFault == InjectedFault(rule: 1, function: .copyMatching, status: .interactionNotAllowed, group: nil))
        #expect(first?.message.contains("injected by fault plan rule 1") == true)
        #expect(try keychain.first(.init(account: "alice")).data == Data("t".utf8))
        let rule = try #require(try rig.device.faultPlan.read().rules.first)
        #expect(rule.injected == 1 && rule.isSpent)
    }

    @Test func anInjectedAddWritesNothingAndAnInjectedDeleteDeletesNothing() throws {
        let rig = try Rig()
        defer { rig.remove() }
        let keychain = try rig.keychain()
        try rig.device.faultPlan.add(try FaultRule(call: "SecItemAdd", status: "-34018", count: 1))
        try rig.device.faultPlan.add(try FaultRule(call: "SecItemDelete", status: "errSecIO", count: 1))
        #expect(throws: KeychainError.injected(InjectedFault(rule: 1, function: .add, status: .missingEntitlement, group: nil))) {
            try keychain.add(NewItem(account: "alice", service: "rt", data: Data("t".utf8)))
        }
        #expect(try keychain.copyAll(.all()).isEmpty)
        try keychain.add(NewItem(account: "alice", service: "rt", data: Data("t".utf8)))
        #expect(throws: KeychainError.injected(InjectedFault(rule: 2, function: .delete, status: .io, group: nil))) {
            try keychain.delete(.all())
        }
        #expect(try keychain.copyAll(.all()).count == 1)
    }

    @Test func aRuleFiresOnlyForItsCallGroupAndApp() throws {
        let rig = try Rig()
        defer { rig.remove() }
        let keychain = try rig.keychain()
        try keychain.add(NewItem(account: "alice", service: "rt", data: Data("t".utf8)))
        try rig.device.faultPlan.add(try FaultRule(call: "SecItemCopyMatching", status: "-25308", group: "ABCDE12345.other", every: 1))
        try rig.device.faultPlan.add(try FaultRule(call: "SecItemCopyMatching", status: "-25308", app: "com.contoso.calendar", every: 1))
        try rig.device.faultPlan.add(try FaultRule(call: "SecItemUpdate", status: "-25308", group: Self.shared, every: 1))
        #expect(try keychain.first(.init(account: "alice")).account == "alice")
        #expect(throws: KeychainError.self) { try keychain.update(.init(account: "alice"), with: ItemChange(data: Data("u".utf8))) }
        let rules = try rig.device.faultPlan.read().rules
        #expect(rules.map(\.matched) == [0, 0, 1])
        #expect(rules.map(\.injected) == [0, 0, 1])
    }

    @Test func everyNthCallFailsTheNthOfTheMatchingCalls() throws {
        let rig = try Rig()
        defer { rig.remove() }
        let keychain = try rig.keychain()
        try keychain.add(NewItem(account: "alice", service: "rt", data: Data("t".utf8)))
        try rig.device.faultPlan.add(try FaultRule(call: "SecItemCopyMatching", status: "errSecDecode", every: 3))
        var statuses: [KeychainStatus] = []
        for _ in 0..<7 {
            do throws(KeychainError) {
                _ = try keychain.first(KeychainQuery(account: "alice"))
                statuses.append(.success)
            } catch {
                statuses.append(error.status)
            }
        }
        #expect(statuses == [.success, .success, .decode, .success, .success, .decode, .success])
    }

    /// Several readers of one plan (threads, each opening and locking the file as a process
    /// does) consume a count exactly: `count 3` fails three calls among all of them.
    @Test func aCountIsConsumedExactlyOnceAcrossConcurrentReadersOfThePlan() throws {
        let rig = try Rig()
        defer { rig.remove() }
        try rig.device.faultPlan.add(try FaultRule(call: "SecItemCopyMatching", status: "-25308", count: 3))
        let readers = 8
        let callsEach = 25
        let injected = (0..<readers).map { _ in FaultCount() }
        DispatchQueue.concurrentPerform(iterations: readers) { reader in
            let plan = FaultPlanFile(stateDirectory: rig.state)
            for _ in 0..<callsEach where plan.fault(for: .copyMatching, groups: [Self.shared], app: "com.contoso.mail") != nil {
                injected[reader].increment()
            }
        }
        #expect(injected.reduce(0) { $0 + $1.value } == 3)
        let rule = try #require(try rig.device.faultPlan.read().rules.first)
        #expect(rule.injected == 3)
        // A spent rule matches nothing more: the calls after it are not counted.
        #expect(rule.matched == 3)
    }

    @Test func clearRemovesThePlanAndNumbersStartAgain() throws {
        let rig = try Rig()
        defer { rig.remove() }
        let plan = rig.device.faultPlan
        try plan.add(try FaultRule(call: "SecItemAdd", status: "-25299", count: 2))
        try plan.add(try FaultRule(call: "SecItemDelete", status: "-25300", probability: 1))
        #expect(try plan.read().rules.map(\.number) == [1, 2])
        #expect(try plan.clear() == 2)
        #expect(!FileManager.default.fileExists(atPath: plan.url.path))
        #expect(try plan.read().rules.isEmpty)
        #expect(try plan.add(try FaultRule(call: "SecItemAdd", status: "-25299", count: 1)).number == 1)
    }

    @Test func aDamagedPlanIsNamedByItsReaderAndInjectsNothing() throws {
        let rig = try Rig()
        defer { rig.remove() }
        let keychain = try rig.keychain()
        try keychain.add(NewItem(account: "alice", service: "rt", data: Data("t".utf8)))
        let url = rig.device.faultPlan.url
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("{\"rules\": 3}".utf8).write(to: url)
        let error = #expect(throws: FaultPlanError.self) { try rig.device.faultPlan.read() }
        #expect(error?.message.contains(rig.device.faultPlan.url.path) == true)
        #expect(try keychain.first(.init(account: "alice")).account == "alice")
        // Clearing is the repair: it removes the damaged file.
        #expect(try rig.device.faultPlan.clear() == 0)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func badRulesAreRefusedWithWhatWouldBeAccepted() throws {
        #expect(throws: FaultPlanError.unknownCall("SecItemRead")) { try FaultRule(call: "SecItemRead", status: "-25308", count: 1) }
        #expect(throws: FaultPlanError.unknownStatus("-1")) { try FaultRule(call: "SecItemAdd", status: "-1", count: 1) }
        #expect(throws: FaultPlanError.unknownStatus("errSecSuccess")) { try FaultRule(call: "SecItemAdd", status: "errSecSuccess", count: 1) }
        #expect(throws: FaultPlanError.noTrigger) { try FaultRule(call: "SecItemAdd", status: "-25308") }
        #expect(throws: FaultPlanError.conflictingTriggers(["count", "probability"])) {
            try FaultRule(call: "SecItemAdd", status: "-25308", count: 1, probability: 0.5)
        }
        #expect(throws: FaultPlanError.countOutOfRange(0)) { try FaultRule(call: "SecItemAdd", status: "-25308", count: 0) }
        #expect(throws: FaultPlanError.everyOutOfRange(-2)) { try FaultRule(call: "SecItemAdd", status: "-25308", every: -2) }
        #expect(throws: FaultPlanError.probabilityOutOfRange(0)) { try FaultRule(call: "SecItemAdd", status: "-25308", probability: 0) }
        #expect(throws: FaultPlanError.probabilityOutOfRange(1.5)) { try FaultRule(call: "SecItemAdd", status: "-25308", probability: 1.5) }
        #expect(throws: FaultPlanError.badGroup("")) { try FaultRule(call: "SecItemAdd", status: "-25308", group: "", count: 1) }
        let unknown = FaultPlanError.unknownStatus("-1")
        #expect(unknown.status == .param)
        #expect(unknown.message.contains("errSecInteractionNotAllowed (-25308)"))
        #expect(FaultPlanError.unknownCall("x").message.contains("SecItemCopyMatching"))
    }
}

/// A counter one thread increments.
private final class FaultCount: @unchecked Sendable {
    // Each instance is written by one thread of concurrentPerform and read after it returns.
    private(set) var value = 0
    func increment() { value += 1 }
}
