import Foundation
import SharedKeychain

/// When a fault rule fires among the calls it matches.
public enum FaultTrigger: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The next `n` matching calls, across every process using the device; then the rule is spent.
    case count(Int)
    /// Every `n`th matching call (`1`: every one), until the plan is cleared.
    case every(Int)
    /// Each matching call with probability `p`, in (0, 1].
    case probability(Double)

    public var description: String {
        switch self {
        case .count(let n): "next \(n.counted("call"))"
        case .every(1): "every call"
        case .every(let n): "1 call in \(n)"
        case .probability(let p): "probability \(p)"
        }
    }
}

extension FaultTrigger {
    private enum CodingKeys: String, CodingKey {
        case count, every, probability
    }

    /// One key naming the trigger: `{"count": 1}`, `{"every": 3}`, `{"probability": 0.5}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .count(let n): try container.encode(n, forKey: .count)
        case .every(let n): try container.encode(n, forKey: .every)
        case .probability(let p): try container.encode(p, forKey: .probability)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let n = try container.decodeIfPresent(Int.self, forKey: .count) {
            self = .count(n)
        } else if let n = try container.decodeIfPresent(Int.self, forKey: .every) {
            self = .every(n)
        } else if let p = try container.decodeIfPresent(Double.self, forKey: .probability) {
            self = .probability(p)
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a trigger names count, every or probability"))
        }
    }
}

/// One rule of a device's fault plan: which SecItem function, for which app and group, fails
/// with which status, and when. Made only by ``init(call:status:group:app:count:every:probability:)``,
/// which validates its inputs.
public struct FaultRule: Sendable, Hashable, Codable {
    /// The rule's number in the plan, from 1; what an ``InjectedFault`` names.
    public internal(set) var number: Int
    public let function: SecItemFunction
    public let status: KeychainStatus
    /// Only calls acting on this access group (in full: `TEAM.group`); nil: any group.
    public let group: String?
    /// Only calls made as this app (its bundle ID); nil: any app.
    public let app: String?
    public let trigger: FaultTrigger
    /// The calls the rule matched so far.
    public internal(set) var matched = 0
    /// The calls it failed so far.
    public internal(set) var injected = 0

    /// A rule from what a person typed: the call by Apple's name, the status by name or number.
    ///
    /// - Parameters:
    ///   - call: `SecItemAdd`, `SecItemCopyMatching`, `SecItemUpdate` or `SecItemDelete`.
    ///   - status: a status a keychain call can give (``KeychainStatus/injectable``), by name
    ///     (`errSecInteractionNotAllowed`) or number (`-25308`).
    ///   - group: only calls on this access group.
    ///   - app: only calls made as this bundle ID.
    ///   - count: fail the next `count` matching calls (at least 1).
    ///   - every: fail every `every`th matching call (at least 1).
    ///   - probability: fail each matching call with this probability, in (0, 1].
    /// - Throws: ``FaultPlanError`` naming the first input that is wrong; exactly one of
    ///   `count`, `every` and `probability` must be given.
    public init(
        call: String, status: String, group: String? = nil, app: String? = nil, count: Int? = nil, every: Int? = nil, probability: Double? = nil
    ) throws(FaultPlanError) {
        guard let function = SecItemFunction(rawValue: call) else { throw .unknownCall(call) }
        guard let parsed = KeychainStatus(nameOrNumber: status), KeychainStatus.injectable.contains(parsed) else {
            throw .unknownStatus(status)
        }
        if let group, group.trimmingCharacters(in: .whitespaces).isEmpty || group != group.trimmingCharacters(in: .whitespaces) {
            throw .badGroup(group)
        }
        if let app, app.trimmingCharacters(in: .whitespaces).isEmpty || app != app.trimmingCharacters(in: .whitespaces) {
            throw .badApp(app)
        }
        let given = [count.map { _ in "count" }, every.map { _ in "every" }, probability.map { _ in "probability" }].compactMap { $0 }
        guard given.count == 1 else { throw given.isEmpty ? .noTrigger : .conflictingTriggers(given) }
        let trigger: FaultTrigger
        if let count {
            guard count >= 1 else { throw .countOutOfRange(count) }
            trigger = .count(count)
        } else if let every {
            guard every >= 1 else { throw .everyOutOfRange(every) }
            trigger = .every(every)
        } else {
            let p = probability ?? 0
            guard p > 0, p <= 1 else { throw .probabilityOutOfRange(p) }
            trigger = .probability(p)
        }
        self.number = 0
        self.function = function
        self.status = parsed
        self.group = group
        self.app = app
        self.trigger = trigger
    }

    /// A count rule that failed all its calls; it stays in the plan, to be listed.
    public var isSpent: Bool {
        if case .count(let n) = trigger { injected >= n } else { false }
    }

    func matches(_ function: SecItemFunction, groups: [String], app: String) -> Bool {
        guard !isSpent, function == self.function else { return false }
        if let group = self.group, !groups.contains(group) { return false }
        if let only = self.app, only != app { return false }
        return true
    }

    /// Counts a matching call; true when the rule fails it. `draw` is a number in [0, 1).
    mutating func fire(draw: Double) -> Bool {
        matched += 1
        let fires: Bool
        switch trigger {
        case .count: fires = true
        case .every(let n): fires = matched % n == 0
        case .probability(let p): fires = draw < p
        }
        if fires { injected += 1 }
        return fires
    }

    var fault: InjectedFault { InjectedFault(rule: number, function: function, status: status, group: group) }
}

/// A device's fault plan: rules in the order they were added. The first live rule that
/// matches a call and fires fails it.
public struct FaultPlan: Sendable, Hashable, Codable {
    public internal(set) var rules: [FaultRule] = []
    /// The number the next rule gets: numbers are not reused until the plan is cleared.
    var nextNumber = 1

    public init() {}

    mutating func append(_ rule: FaultRule) -> FaultRule {
        var numbered = rule
        numbered.number = nextNumber
        nextNumber += 1
        rules.append(numbered)
        return numbered
    }

    /// Counts the call against every live rule that matches it, in order, up to the first that
    /// fires; returns that rule's fault.
    mutating func consume(_ function: SecItemFunction, groups: [String], app: String, draw: () -> Double) -> InjectedFault? {
        for index in rules.indices where rules[index].matches(function, groups: groups, app: app) {
            if rules[index].fire(draw: draw()) { return rules[index].fault }
        }
        return nil
    }
}

/// Why a fault rule or plan was refused; nothing was written. Each names the input and what
/// would be accepted.
public enum FaultPlanError: Error, Sendable, Equatable, CustomStringConvertible, StatusReporting {
    case unknownCall(String)
    case unknownStatus(String)
    case badGroup(String)
    case badApp(String)
    case noTrigger
    case conflictingTriggers([String])
    case countOutOfRange(Int)
    case everyOutOfRange(Int)
    case probabilityOutOfRange(Double)
    /// The plan's file cannot be read or written.
    case file(DeviceError)

    /// errSecParam (exit 10), but for an unusable plan file, which is the device's error.
    public var status: KeychainStatus {
        if case .file(let error) = self { error.status } else { .param }
    }

    public var message: String { description }

    public var description: String {
        switch self {
        case .unknownCall(let call):
            "unknown call '\(DisplayText(call))': use one of \(SecItemFunction.allCases.map(\.rawValue).joined(separator: ", "))"
        case .unknownStatus(let status):
            "'\(DisplayText(status))' is not a status a keychain call gives: use one of "
                + KeychainStatus.injectable.map { "\($0.name) (\($0.rawValue))" }.joined(separator: ", ")
        case .badGroup(let group):
            "the group '\(DisplayText(group))' is empty or has surrounding spaces: name the access group in full (TEAM.group)"
        case .badApp(let app):
            "the app '\(DisplayText(app))' is empty or has surrounding spaces: give its bundle ID"
        case .noTrigger:
            "say when the fault fires: a count (the next N calls), every Nth call (1: every call), or a probability"
        case .conflictingTriggers(let given):
            "a \(given.joined(separator: " and a ")) conflict: give only one of a count, every Nth call, or a probability"
        case .countOutOfRange(let count):
            "the count is \(count): it must be at least 1"
        case .everyOutOfRange(let every):
            "every \(every)th call: it must be at least 1 (1 fails every call)"
        case .probabilityOutOfRange(let p):
            "the probability is \(p): it must be in (0, 1] (above 0, at most 1)"
        case .file(let error):
            error.message
        }
    }
}
