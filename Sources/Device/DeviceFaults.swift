import Foundation
import KeychainStorage
import SharedKeychain

extension Device {
    /// The file a device's fault plan is kept in, in `<state>/device/`.
    public static let faultPlanFileName = "faults.json"

    /// The device's fault plan, as every keychain made on this device reads it.
    public var faultPlan: FaultPlanFile { FaultPlanFile(stateDirectory: stateDirectory) }
}

/// A device's fault plan, `<state>/device/faults.json` (0600), changed only under an
/// exclusive `flock` of `faults.lock` beside it: a rule's counts move once per call across every
/// process using the device, so `count 1` fails exactly one call among them all.
///
/// It is the device's ``KeychainFaultSource``: ``Device/session(keyring:timeout:logger:policyFile:)``
/// hands it to every app keychain it makes (commands, SecItem calls, load workers), and a device
/// without the file injects nothing, at the cost of one `stat` per call.
public struct FaultPlanFile: KeychainFaultSource, Sendable {
    public let url: URL
    private var lockURL: URL { url.deletingLastPathComponent().appendingPathComponent("faults.lock") }

    public init(stateDirectory: URL) {
        url = Device(stateDirectory: stateDirectory).directory.appendingPathComponent(Device.faultPlanFileName)
    }

    private var file: DeviceStateFile<FaultPlan> {
        DeviceStateFile(url: url, kind: "a fault plan", repair: .clearFaultPlan, absent: FaultPlan())
    }

    /// The plan as it stands: every rule with its counts; an empty plan when there is none.
    /// - Throws: ``FaultPlanError/file(_:)`` when the file is not a fault plan.
    public func read() throws(FaultPlanError) -> FaultPlan {
        do throws(DeviceError) { return try file.read() } catch { throw .file(error) }
    }

    /// Adds `rule` (numbered next) and returns it as numbered.
    /// - Throws: ``FaultPlanError/file(_:)`` when the plan cannot be read or written; the
    ///   plan is then unchanged.
    @discardableResult
    public func add(_ rule: FaultRule) throws(FaultPlanError) -> FaultRule {
        try withLock { plan in plan.append(rule) }
    }

    /// Removes every rule, a damaged plan's file included; returns how many rules there were
    /// (0 for a damaged plan).
    @discardableResult
    public func clear() throws(FaultPlanError) -> Int {
        try withLock(readingDamaged: true) { plan in
            defer { plan = FaultPlan() }
            return plan.rules.count
        }
    }

    /// The fault for this call, counted in the plan under the lock; nil when no rule fires or
    /// there is no plan. A plan that cannot be read or written injects nothing (the file's
    /// error is met by `device fault list`), so a damaged plan never fails calls at random.
    public func fault(for function: SecItemFunction, groups: [String], app: String) -> InjectedFault? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try? withLock { plan in
            plan.consume(function, groups: groups, app: app) { Double.random(in: 0..<1) }
        }
    }

    /// Runs `change` on the plan under the lock and writes the plan back when it changed.
    /// `readingDamaged`: a plan that cannot be read is taken as empty rather than refused.
    private func withLock<T>(readingDamaged: Bool = false, _ change: (inout FaultPlan) -> T) throws(FaultPlanError) -> T {
        let descriptor: Int32
        do throws(PrivateFile.Failure) {
            try PrivateFile.createDirectory(url.deletingLastPathComponent())
            guard let opened = try PrivateFile.openRegular(lockURL.path, flags: O_RDWR | O_CREAT) else {
                throw PrivateFile.Failure.system(path: lockURL.path, reason: "it vanished while being created")
            }
            descriptor = opened
        } catch {
            throw .file(.unreadable(path: lockURL.path, reason: error.description))
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw .file(.unreadable(path: lockURL.path, reason: "cannot lock it: \(String(cString: strerror(errno)))"))
            }
        }
        defer { flock(descriptor, LOCK_UN) }
        var plan: FaultPlan
        do throws(FaultPlanError) {
            plan = try read()
        } catch {
            guard readingDamaged else { throw error }
            plan = FaultPlan()
        }
        let before = plan
        let result = change(&plan)
        if plan.rules.isEmpty {
            // No plan, no file: calls go back to one `stat` each.
            if unlink(url.path) != 0, errno != ENOENT {
                throw .file(.unreadable(path: url.path, reason: "cannot remove it: \(String(cString: strerror(errno)))"))
            }
        } else if plan != before {
            do throws(DeviceError) { try file.write(plan) } catch { throw .file(error) }
        }
        return result
    }
}
