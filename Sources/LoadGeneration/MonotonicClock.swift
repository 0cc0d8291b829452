import Foundation

/// Nanoseconds on the system-wide monotonic clock: comparable across processes, so apps in
/// separate processes share one timeline for phases and for the consistency check.
enum MonotonicClock {
    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}
