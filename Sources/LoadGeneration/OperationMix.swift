import Foundation

/// The share of each operation in a run, in percent, e.g. `read=70,write=20,remove=10`.
public struct OperationMix: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Percent per operation; they add up to 100.
    public let percentages: [LoadOperation: Int]
    /// Operations in order with their cumulative upper bounds (0..<100), for drawing.
    private let thresholds: [(LoadOperation, Int)]

    public init(_ percentages: [LoadOperation: Int]) throws(LoadError) {
        guard percentages.values.allSatisfy({ $0 >= 0 }) else { throw .invalidMix("percentages cannot be negative") }
        let total = percentages.values.reduce(0, +)
        guard total == 100 else { throw .invalidMix("the percentages add up to \(total), not 100") }
        self.percentages = percentages.filter { $0.value > 0 }
        var running = 0
        thresholds = LoadOperation.allCases.compactMap { operation in
            guard let share = percentages[operation], share > 0 else { return nil }
            running += share
            return (operation, running)
        }
    }

    /// Parses `read=70,write=20,remove=10`.
    public init(parsing text: String) throws(LoadError) {
        var percentages: [LoadOperation: Int] = [:]
        for part in text.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { throw .invalidMix("'\(part)' is not operation=percent") }
            guard let operation = LoadOperation(rawValue: pair[0]) else {
                throw .invalidMix("unknown operation '\(pair[0])'; use \(LoadOperation.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            guard let percent = Int(pair[1]) else { throw .invalidMix("'\(pair[1])' is not a whole percentage") }
            guard percentages[operation] == nil else { throw .invalidMix("'\(pair[0])' is given twice") }
            percentages[operation] = percent
        }
        try self.init(percentages)
    }

    /// The operation for a number drawn uniformly from 0..<100.
    public func operation(for draw: Int) -> LoadOperation {
        thresholds.first { draw < $0.1 }?.0 ?? .read
    }

    public var description: String {
        LoadOperation.allCases.compactMap { operation in percentages[operation].map { "\(operation.rawValue)=\($0)" } }
            .joined(separator: ",")
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.percentages == rhs.percentages }
    public func hash(into hasher: inout Hasher) { hasher.combine(percentages) }

    public init(from decoder: any Decoder) throws {
        try self.init(decoder.singleValueContainer().decode([LoadOperation: Int].self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(percentages)
    }
}

/// What a simulated app does in a load run. The ``LoadConfiguration/Workload`` decides which
/// operations a mix may name.
public enum LoadOperation: String, CaseIterable, Codable, CodingKeyRepresentable, Sendable, Comparable {
    /// Read one item (any app's) by account and service.
    case read
    /// Write one of the app's own items: update, or add when absent (as the MSAL SDKs write).
    case write
    /// Update one of the app's own items; nothing there is an expected errSecItemNotFound.
    case update
    /// Delete one of the app's own items.
    case remove
    /// List every item of the shared group, data included.
    case list
    /// Delete the whole shared group: the hazard, as one call. In the token workload, MSAL's
    /// `wipeCacheForAllAccounts` (the whole group, then the wipe record).
    case wipe
    /// Get an access token for one of the app's users from the MSAL cache in the group. In the
    /// items workload a wipe that took it is followed by a sign-in; in the token workload it is
    /// silent only, and `interaction_required` is an expected outcome.
    case acquire
    /// Token workload: an emulated interactive sign-in of one of the app's own users.
    case signin
    /// Token workload: a silent acquisition that skips cached access tokens and redeems the
    /// refresh token (MSAL's `forceRefresh`).
    case refresh
    /// Token workload: MSAL's `removeAccount` for one of the app's own users.
    case removeAccount = "remove-account"

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }
}
