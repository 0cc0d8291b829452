import Foundation

/// Nanoseconds on the system-wide monotonic clock: comparable across processes, so apps in
/// separate processes share one timeline for phases and for the consistency check.
enum MonotonicClock {
    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Blocks the calling thread until the clock reads `deadline` (an absolute sleep, so the
    /// schedule of an open-loop run does not drift).
    static func sleep(until deadline: UInt64) {
        var spec = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &spec, nil) == EINTR {}
    }
}
