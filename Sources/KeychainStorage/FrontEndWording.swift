import Synchronization

/// How this process words, for the person reading it, what a library says in neutral terms.
///
/// A library's messages are true for any caller: "raise the store's timeout", "unlock the
/// device", "apps must be from 1 to 256". A front end with flags and commands of its own (the
/// command line) says the same in those terms. It bootstraps one wording when it starts, as
/// swift-log's `LoggingSystem` is bootstrapped, and every message the process builds afterwards
/// uses it, however deeply one message is nested in another (a step of a report, a worker's
/// failure). The wording is given typed values (a ``Remedy``, an error with its data), never a
/// finished string, and answers nil for what it words as the library does.
public enum FrontEndWording {
    /// The front end's words for a value, or nil for the library's own.
    public typealias Words = @Sendable (any Sendable) -> String?

    private static let installed = Mutex<Words?>(nil)

    /// Installs the process's wording; called once, before anything is worded.
    public static func bootstrap(_ words: @escaping Words) {
        installed.withLock { $0 = words }
    }

    /// `value` in the front end's words, or `neutral` when it has none for it.
    public static func words(for value: some Sendable, neutral: @autoclosure () -> String) -> String {
        installed.withLock { $0 }?(value) ?? neutral()
    }
}
