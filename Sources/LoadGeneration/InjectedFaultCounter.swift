import SharedKeychain
import Synchronization

/// The device's fault plan as one load app sees it: each fault the plan injects into the app's
/// calls is counted by status, so a report can show injected faults apart from the store's own.
final class InjectedFaultCounter: KeychainFaultSource {
    private let base: (any KeychainFaultSource)?
    private let counted = Mutex<[String: Int]>([:])
    private let count = Atomic<Int>(0)

    init(base: (any KeychainFaultSource)?) {
        self.base = base
    }

    func fault(for function: SecItemFunction, groups: [String], app: String) -> InjectedFault? {
        guard let fault = base?.fault(for: function, groups: groups, app: app) else { return nil }
        counted.withLock { $0[fault.status.name, default: 0] += 1 }
        count.add(1, ordering: .relaxed)
        return fault
    }

    /// Faults injected so far.
    var total: Int { count.load(ordering: .relaxed) }

    /// Faults injected so far, by status name.
    var byStatus: [String: Int] { counted.withLock { $0 } }
}
