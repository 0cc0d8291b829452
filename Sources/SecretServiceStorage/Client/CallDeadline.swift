import CLibsecret
import Foundation
import Synchronization

/// Bounds one blocking libsecret or GDBus call: the call gets a `GCancellable` that a timer
/// cancels after `seconds`. GDBus would otherwise wait 25 s, and a prompt forever.
///
/// The timers live on one private GLib main context, run by one thread for the whole process,
/// so arming and disarming a timer costs two cheap, thread-safe GLib calls and no thread.
enum CallDeadline {
    /// When the operation the current calls belong to must end: each call gets at most what is
    /// left of it, so an operation of several calls (a search, then GetSecrets, then a retry
    /// after a reconnect) ends within its limit, not within one limit per call.
    @TaskLocal static var operationEnd: OperationEnd?

    /// The end of one operation, which a batch of a long operation may move (``renew(seconds:)``),
    /// and of the operations it runs inside.
    final class OperationEnd: Sendable {
        let outer: OperationEnd?
        private let end: Mutex<ContinuousClock.Instant>

        init(_ end: ContinuousClock.Instant, outer: OperationEnd?) {
            self.outer = outer
            self.end = Mutex(end)
        }

        var instant: ContinuousClock.Instant { end.withLock { $0 } }

        /// Moves this end and every outer one to at least `instant`.
        func extend(to instant: ContinuousClock.Instant) {
            end.withLock { $0 = max($0, instant) }
            outer?.extend(to: instant)
        }
    }

    /// Runs `body` as one operation of at most `seconds` (or less, inside a shorter one).
    static func operation<T, E: Error>(seconds: Double, _ body: () throws(E) -> T) throws(E) -> T {
        var end = ContinuousClock.now.advanced(by: .milliseconds(Int64(min(seconds, 86_400) * 1000)))
        if let outer = operationEnd?.instant, outer < end { end = outer }
        // Through a Result: the task-local's `withValue` rethrows, which would lose the type.
        return try $operationEnd.withValue(OperationEnd(end, outer: operationEnd)) { Result(catching: body) }.get()
    }

    /// Gives the current operation (and those it runs in) at least `seconds` from now: called by
    /// a long operation before each of its batches, so its deadline follows its size while no
    /// batch may take longer than one call's limit.
    static func renew(seconds: Double) {
        operationEnd?.extend(to: ContinuousClock.now.advanced(by: .milliseconds(Int64(min(seconds, 86_400) * 1000))))
    }

    /// `seconds`, or what is left of the current operation if less (0 when nothing is).
    static func remaining(within seconds: Double) -> Double {
        guard let end = operationEnd?.instant else { return seconds }
        let left = ContinuousClock.now.duration(to: end)
        return max(0, min(seconds, Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18))
    }

    /// Runs `body` with a cancellable that fires after `seconds` (or when the operation's time
    /// is up, if sooner); a GError the body reports is turned into a ``GLibFailure`` that knows
    /// whether the deadline caused it.
    static func run<T>(
        seconds: Double,
        call: String,
        _ body: (UnsafeMutablePointer<GCancellable>, inout UnsafeMutablePointer<GError>?) -> T
    ) throws(GLibFailure) -> T {
        let seconds = try allowance(seconds, call: call)
        let cancellable = g_cancellable_new()
        guard let cancellable else { preconditionFailure("g_cancellable_new returned NULL") }
        defer { g_object_unref(cancellable) }
        let milliseconds = UInt32(clamping: max(1, Int((seconds * 1000).rounded(.up))))
        let timer = TimerThread.shared.arm(cancelling: cancellable, afterMilliseconds: milliseconds)
        var error: UnsafeMutablePointer<GError>?
        let result = body(cancellable, &error)
        TimerThread.shared.disarm(timer)
        if let error {
            throw GLibFailure(
                taking: error, call: call, cancelledByDeadline: g_cancellable_is_cancelled(cancellable) != 0)
        }
        return result
    }
}

extension CallDeadline {
    /// Runs one GDBus method call (`body` passes the milliseconds it is given as the call's
    /// `timeout_msec`) bounded by `seconds`, or by what is left of the operation if sooner. GDBus
    /// keeps that timeout itself, so the call needs no cancellable and no timer thread: two
    /// fewer thread wake-ups per call, on the path every keychain write takes under its lock. A
    /// timeout is GDBus's `G_IO_ERROR_TIMED_OUT`, a ``GLibFailure`` of kind `.timedOut`.
    static func dbusCall<T>(
        seconds: Double, call: String, _ body: (gint, inout UnsafeMutablePointer<GError>?) -> T
    ) throws(GLibFailure) -> T {
        let seconds = try allowance(seconds, call: call)
        var error: UnsafeMutablePointer<GError>?
        let result = body(gint(clamping: max(1, Int((seconds * 1000).rounded(.up)))), &error)
        if let error { throw GLibFailure(taking: error, call: call, cancelledByDeadline: false) }
        return result
    }

    /// `seconds`, or what is left of the current operation if less; fails when nothing is left.
    fileprivate static func allowance(_ seconds: Double, call: String) throws(GLibFailure) -> Double {
        let left = remaining(within: seconds)
        guard left > 0 else {
            throw GLibFailure(call: call, message: "the operation's time ran out before this call", kind: .timedOut)
        }
        return left
    }
}

/// The thread that runs the deadline timers' main context.
///
/// `@unchecked Sendable`: the only stored state is a `GMainContext`, which GLib documents as
/// thread-safe for attaching and destroying sources from any thread.
private final class TimerThread: @unchecked Sendable {
    static let shared = TimerThread()

    private let context: OpaquePointer

    private init() {
        guard let context = g_main_context_new() else { preconditionFailure("g_main_context_new returned NULL") }
        self.context = context
        let thread = Thread { [context = ContextBox(context)] in
            let loop = g_main_loop_new(context.pointer, 0)
            g_main_loop_run(loop)
        }
        thread.name = "shared-keychain-deadlines"
        thread.start()
    }

    /// Attaches a one-shot timer that cancels `cancellable`; it holds its own reference.
    func arm(cancelling cancellable: UnsafeMutablePointer<GCancellable>, afterMilliseconds: UInt32) -> UnsafeMutablePointer<GSource> {
        guard let source = g_timeout_source_new(afterMilliseconds) else {
            preconditionFailure("g_timeout_source_new returned NULL")
        }
        g_source_set_callback(
            source,
            { data in
                if let data { g_cancellable_cancel(data.assumingMemoryBound(to: GCancellable.self)) }
                return 0  // G_SOURCE_REMOVE
            },
            g_object_ref(cancellable),
            { data in g_object_unref(data) })
        g_source_attach(source, context)
        return source
    }

    func disarm(_ source: UnsafeMutablePointer<GSource>) {
        g_source_destroy(source)
        g_source_unref(source)
    }
}

/// Carries the context pointer into the thread's closure.
/// `@unchecked Sendable`: a `GMainContext` may be used from any thread.
private struct ContextBox: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}
