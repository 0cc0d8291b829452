import Foundation
import Synchronization

/// Runs one body per app on its own thread, all released at the same instant, as apps that
/// start together; returns the results in the apps' order.
enum ConcurrentApps {
    static func run<Result: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> Result) -> [Result] {
        let results = Mutex<[Int: Result]>([:])
        let group = DispatchGroup()
        let start = Date().addingTimeInterval(0.05)
        for index in 0..<count {
            group.enter()
            let thread = Thread {
                Thread.sleep(until: start)
                let result = body(index)
                results.withLock { $0[index] = result }
                group.leave()
            }
            thread.start()
        }
        group.wait()
        return results.withLock { collected in (0..<count).compactMap { collected[$0] } }
    }
}
