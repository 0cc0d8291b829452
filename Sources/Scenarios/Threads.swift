import Foundation

/// Runs `body(0..<count)` each on a thread of its own and waits for all. Unlike
/// `DispatchQueue.concurrentPerform`, which uses about one thread per core, every call starts
/// at once: the calls block on the keyring, not on the CPU.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            body(index)
            group.leave()
        }.start()
    }
    group.wait()
}
