import Foundation
import Synchronization

/// N threads released at the same instant, as apps that start together: each thread is started
/// and waits at the barrier until all are running, then all run their body at once. Threads,
/// not tasks: the bodies block on the keyring, and the cooperative pool has only a few threads.
public enum StartBarrier {
    /// Runs `body(0..<count)` each on a thread of its own, all released together once every
    /// thread has started; returns the results in index order when all have finished.
    public static func run<Result: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> Result) -> [Result] {
        let results = ResultSlots<Result>(count: count)
        let started = DispatchGroup()
        let gate = DispatchGroup()
        let finished = DispatchGroup()
        gate.enter()
        for index in 0..<count {
            started.enter()
            finished.enter()
            Thread {
                started.leave()
                gate.wait()
                results.store(body(index), at: index)
                finished.leave()
            }.start()
        }
        started.wait()
        gate.leave()
        finished.wait()
        return results.all
    }
}

/// One slot per thread, each written once by its own thread.
private final class ResultSlots<Result: Sendable>: Sendable {
    private let slots: Mutex<[Result?]>

    init(count: Int) { slots = Mutex(Array(repeating: nil, count: count)) }

    func store(_ result: Result, at index: Int) { slots.withLock { $0[index] = result } }

    /// Every stored result, in index order.
    var all: [Result] { slots.withLock { $0.compactMap { $0 } } }
}
