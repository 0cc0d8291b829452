import Foundation
import SharedKeychain

/// How one operation of an app ended, as the timeline shows it: never item data or tokens.
public struct OperationOutcome: Sendable, Hashable, Codable, CustomStringConvertible {
    /// When the operation started (wall clock, comparable across app processes).
    public var started: Date
    /// How long it took, in seconds.
    public var seconds: Double
    public var status: KeychainStatus
    /// MSAL's name for the failure, where it has one (`interaction_required`).
    public var code: String?
    /// The failure's message; nil on success.
    public var message: String?
    /// Items or accounts returned, changed or deleted.
    public var count: Int?
    /// A non-secret result: usernames, a token source, a counter, a bundle ID.
    public var value: String?

    /// - Parameters: see the properties.
    public init(
        started: Date, seconds: Double, status: KeychainStatus, code: String? = nil, message: String? = nil,
        count: Int? = nil, value: String? = nil
    ) {
        self.started = started
        self.seconds = seconds
        self.status = status
        self.code = code
        self.message = message
        self.count = count
        self.value = value
    }

    /// Whether the operation succeeded.
    public var succeeded: Bool { status == .success }

    /// `ok, count 1, value 'x'`, or `interaction_required: no account ...`.
    public var description: String {
        guard succeeded else {
            let name = code ?? status.name
            guard let message else { return status.description }
            // MSAL's messages start with their code already.
            return message.hasPrefix(name) ? message : "\(name): \(message)"
        }
        return observed
    }

    /// The parts an ``ExpectedOutcome`` compares, in its words: `ok, count 1, value 'x'`.
    public var observed: String {
        guard succeeded else { return code ?? status.name }
        var parts = ["ok"]
        if let count { parts.append("count \(count)") }
        if let value { parts.append("value '\(value)'") }
        return parts.joined(separator: ", ")
    }
}
