import SharedKeychain

/// How an operation should end: `ok`, a Keychain status by name or number
/// (`errSecItemNotFound`, `-34018`), or MSAL's `interaction_required`.
public enum ExpectedStatus: Sendable, Hashable, Decodable, CustomStringConvertible {
    case ok
    case status(KeychainStatus)
    /// A finer code than the status (`interaction_required`).
    case code(String)

    /// The codes the token cache reports besides statuses.
    static let codes = ["interaction_required"]

    /// Parses `ok`, `errSecItemNotFound`, `-25300` or `interaction_required`.
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if ["ok", "success", KeychainStatus.success.name].contains(trimmed) {
            self = .ok
        } else if let status = KeychainStatus.allCases.first(where: { $0.name == trimmed || String($0.rawValue) == trimmed }) {
            self = status == .success ? .ok : .status(status)
        } else if Self.codes.contains(trimmed) {
            self = .code(trimmed)
        } else {
            return nil
        }
    }

    /// Whether `outcome` ended this way.
    public func matches(_ outcome: OperationOutcome) -> Bool {
        switch self {
        case .ok: outcome.status == .success
        case .status(let status): outcome.status == status
        case .code(let code): outcome.code == code
        }
    }

    /// `ok`, `errSecItemNotFound`, `interaction_required`.
    public var description: String {
        switch self {
        case .ok: "ok"
        case .status(let status): status.name
        case .code(let code): code
        }
    }

    /// Reads the text form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = (try? container.decode(String.self)) ?? (try? container.decode(Int.self)).map(String.init) ?? ""
        guard let parsed = ExpectedStatus(parsing: text) else {
            let names = ["ok"] + KeychainStatus.allCases.filter { $0 != .success }.map(\.name) + Self.codes
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not an outcome; use one of \(names.joined(separator: ", "))")
        }
        self = parsed
    }
}
