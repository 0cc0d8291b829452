import SharedKeychain

/// Why ``ExampleSuite/write(to:force:)`` wrote nothing, or not everything.
public enum ExampleSuiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Files that exist; nothing was written.
    case wouldOverwrite(directory: String, files: [String])
    /// The target exists and is not a directory.
    case notADirectory(String)
    case writeFailed(file: String, reason: String)

    /// What went wrong, naming the files.
    public var description: String {
        switch self {
        case .wouldOverwrite(let directory, let files):
            "refusing to overwrite \(files.joined(separator: ", ")) in \(directory): nothing was written; use --force to replace them"
        case .notADirectory(let path):
            "'\(path)' exists and is not a directory"
        case .writeFailed(let file, let reason):
            "cannot write '\(file)': \(reason)"
        }
    }
}

extension ExampleSuiteError: StatusReporting {
    /// errSecParam for a target that is in the way, errSecIO when writing failed.
    public var status: KeychainStatus {
        if case .writeFailed = self { return .io }
        return .param
    }

    /// The same as ``description``.
    public var message: String { description }
}
