import Foundation
import SharedKeychain
import Synchronization

/// A cache write that failed while the token was still returned, as MSAL has it
/// (`MSIDTokenResponseValidator` `validateAndSaveTokenResponse`: "if there's an error saving
/// result, we log it, but we don't fail validation"). It names the keychain call that failed
/// and how many items of the response had been written before it; never item data.
public struct CacheSaveFailure: Sendable, Hashable, CustomStringConvertible {
    /// Which of the SDK's two save steps failed; each is logged and the other still runs.
    public enum Step: String, Sendable, Hashable, Codable {
        /// `updateSignInStateForHomeAccountId`: the client's account metadata (type 5001).
        case accountMetadata = "account_metadata"
        /// `saveTokensWithConfiguration` (ADAL: `saveTokensWithRequestParams`): the response's items.
        case tokens
    }

    /// The step that failed.
    public let step: Step
    /// The keychain call that failed (function, account, service, type, status), when the
    /// failure came from one.
    public let call: KeychainCall?
    /// The status the step failed with.
    public let status: KeychainStatus
    /// What went wrong, for people.
    public let message: String
    /// The items the step wrote (update or add) before it stopped.
    public let itemsWritten: Int

    /// - Parameters: see the properties.
    public init(step: Step, call: KeychainCall?, status: KeychainStatus, message: String, itemsWritten: Int) {
        self.step = step
        self.call = call
        self.status = status
        self.message = message
        self.itemsWritten = itemsWritten
    }

    /// One line: the step, the failed call and its status, and what was written.
    public var description: String {
        let what = call.map { "\($0.function.rawValue)\($0.type.map { " {type \($0)}" } ?? "") \($0.status.name) (\($0.status.rawValue))" }
            ?? "\(status.name) (\(status.rawValue))"
        let step = step == .tokens ? "saving the tokens" : "updating the account metadata"
        return "\(step) failed at \(what) after \(itemsWritten.counted("item")) written"
    }
}

/// Collects the keychain calls one save step makes, through a task-local, so a failure can
/// name the call that ended it without threading a collector through every accessor.
final class CacheSaveRecorder: Sendable {
    /// The recorder of the save step running on this task or thread, if any.
    @TaskLocal static var current: CacheSaveRecorder?

    private struct State {
        var written = 0
        var lastFailure: KeychainCall?
    }

    private let state = Mutex(State())

    /// Counts a successful write; keeps a failed call (not-found answers are outcomes, not failures).
    func record(_ call: KeychainCall) {
        state.withLock { state in
            switch call.status {
            case .success where call.function == .add || call.function == .update: state.written += 1
            case .success, .itemNotFound: break
            default: state.lastFailure = call
            }
        }
    }

    /// Runs one save step; returns its failure, or nil when it saved everything.
    static func run(_ step: CacheSaveFailure.Step, _ body: () throws(TokenCacheError) -> Void) -> CacheSaveFailure? {
        let recorder = CacheSaveRecorder()
        let outcome = $current.withValue(recorder) { () -> TokenCacheError? in
            do throws(TokenCacheError) {
                try body()
                return nil
            } catch {
                return error
            }
        }
        guard let outcome else { return nil }
        let (written, call) = recorder.state.withLock { ($0.written, $0.lastFailure) }
        return CacheSaveFailure(step: step, call: call, status: outcome.status, message: outcome.message, itemsWritten: written)
    }
}
