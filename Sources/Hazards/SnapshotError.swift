import SharedKeychain

/// A snapshot file that cannot be written or read.
public enum SnapshotError: Error, Sendable, Equatable, StatusReporting, CustomStringConvertible {
    /// The file cannot be written.
    case unwritable(path: String, reason: String)
    /// The file cannot be read.
    case unreadable(path: String, reason: String)
    /// The file is not a snapshot this version reads.
    case invalid(path: String, reason: String)

    /// File trouble is errSecIO; a file that is not a snapshot is errSecParam.
    public var status: KeychainStatus {
        switch self {
        case .unwritable, .unreadable: .io
        case .invalid: .param
        }
    }

    /// What is wrong and where.
    public var message: String {
        switch self {
        case .unwritable(let path, let reason): "cannot write the snapshot \(path): \(reason)"
        case .unreadable(let path, let reason): "cannot read the snapshot \(path): \(reason)"
        case .invalid(let path, let reason): "\(path) is not a group snapshot: \(reason)"
        }
    }

    /// The message.
    public var description: String { message }
}
