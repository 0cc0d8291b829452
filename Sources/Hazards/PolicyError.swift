import SharedKeychain

/// A policy file that cannot be used.
public enum PolicyError: Error, Sendable, Equatable, StatusReporting, CustomStringConvertible {
    /// The file cannot be read.
    case unreadable(path: String, reason: String)
    /// The file is not a mitigation policy.
    case invalid(path: String, reason: String)

    /// Bad input: errSecParam.
    public var status: KeychainStatus { .param }

    /// What is wrong and where.
    public var message: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read the policy file \(path): \(reason)"
        case .invalid(let path, let reason):
            "\(path) is not a mitigation policy: \(reason); expected {\"groups\": {\"<group>\": {\"mitigations\": [\"audit\", \"guarded-delete\"], \"privileged\": [\"<bundle id>\"]}}}"
        }
    }

    /// The message.
    public var description: String { message }

    static func describe(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        switch decoding {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            let detail = context.debugDescription.hasSuffix(".") ? String(context.debugDescription.dropLast()) : context.debugDescription
            return (path.isEmpty ? "" : "at '\(path)': ") + detail
        @unknown default:
            return "\(decoding)"
        }
    }
}
