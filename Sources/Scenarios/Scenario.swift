import Foundation
import Hazards
import Mitigations
import SharedKeychain
import SuiteManifest
import Yams

/// A scenario: apps of a suite performing steps, one after another or at once, with background
/// jobs and assertions. Read from YAML or JSON:
///
/// ```yaml
/// name: wipe-all across app processes
/// suite: ../suite                 # a suite manifest (file or directory), relative to this file
/// policy:                         # optional, as policy.json: mitigations per access group
///   groups: {ABCDE12345.com.microsoft.adalcache: {mitigations: [guarded-delete]}}
/// steps:
///   - {app: com.contoso.mail, do: token signin, user: alice@contoso.com}
///   - {background: refresh, app: com.contoso.mail, do: token acquire, account: alice@contoso.com, silent: true, every: 50ms}
///   - {wait: {job: refresh, runs: 3}}
///   - {app: com.contoso.calendar, do: token wipe, expect: ok}
///   - {wait: {job: refresh, runs: 6}}
///   - {stop: refresh, expect: {failed: {at-least: 1}}}
///   - {app: com.contoso.mail, do: token wipe-info, expect: {value: com.contoso.calendar}}
/// ```
public struct Scenario: Sendable {
    /// The scenario file.
    public let file: URL
    /// A display name: the file's `name`, else its file name.
    public let name: String
    /// What the scenario shows, when the file says.
    public let summary: String?
    /// The apps, with their identities and MSAL settings.
    public let suite: Suite
    /// Opt-in mitigations; `.none` behaves as Keychain Services does.
    public let policy: MitigationPolicy
    public let steps: [ScenarioStep]

    static let topKeys = ["name", "description", "suite", "policy", "steps"]

    /// Reads and checks a scenario.
    /// - Parameter suiteOverride: a suite manifest to use instead of the file's `suite`.
    /// - Throws: ``ScenarioError`` naming the file, the step and the problem.
    public static func load(from url: URL, suite suiteOverride: URL? = nil) throws(ScenarioError) -> Scenario {
        let data: Data
        do { data = try InputValidation.readDocument(at: url, field: "scenario") } catch {
            throw .unreadable(path: url.path, reason: error.message)
        }
        let file: ScenarioFile
        do {
            if url.pathExtension.lowercased() == "json" {
                let tree = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
                try InputValidation.checkShape(of: tree, field: "the scenario")
                file = try JSONDecoder().decode(ScenarioFile.self, from: data)
            } else {
                // Limits first: the decoder would expand aliases while it walks.
                do { try YAMLLimits.check(data) } catch {
                    throw ScenarioError.malformed(path: url.path, at: nil, reason: error.reason)
                }
                file = try YAMLDecoder().decode(ScenarioFile.self, from: data)
            }
        } catch let error as ScenarioError {
            throw error
        } catch let error as KeychainError {
            throw .malformed(path: url.path, at: nil, reason: error.message)
        } catch {
            let (place, reason) = Self.describe(error)
            throw .malformed(path: url.path, at: place, reason: reason)
        }
        guard let suitePath = suiteOverride?.path ?? file.suite else {
            throw .malformed(path: url.path, at: nil, reason: "no suite: give the scenario a 'suite' (a manifest file or directory), or pass one")
        }
        let suiteURL = URL(fileURLWithPath: suitePath, relativeTo: url.deletingLastPathComponent()).standardizedFileURL
        let suite: Suite
        do { suite = try SuiteManifest.load(from: suiteURL) } catch { throw .suite(error) }
        let scenario = Scenario(
            file: url, name: file.name ?? url.deletingPathExtension().lastPathComponent, summary: file.description,
            suite: suite, policy: file.policy ?? .none, steps: file.steps)
        try ScenarioValidator(scenario: scenario).validate()
        return scenario
    }

    /// The suite's apps the steps use, in order of first use.
    public var apps: [SuiteApp] {
        var seen: [String] = []
        for step in steps {
            for app in step.apps where !seen.contains(app.lowercased()) { seen.append(app.lowercased()) }
        }
        return seen.compactMap { bundleID in suite.apps.first { $0.bundleID.lowercased() == bundleID } }
    }

    /// Every access group the scenario's apps can reach, and the audit journals of groups the
    /// policy audits: what `--fresh` empties.
    public func groups() throws(ScenarioError) -> [String] {
        var groups: [String] = []
        for app in apps {
            let identity: AppIdentity
            do { identity = try app.identity() } catch { throw .suite(error) }
            for group in identity.accessGroupNames where !groups.contains(group) { groups.append(group) }
        }
        let journals = groups.filter { policy.policy(for: $0)?.enables(.audit) ?? false }.map(AuditJournal.journalGroup(for:))
        return groups + journals
    }

    /// `(step 4, expect.count, reason)` from a decoding error's coding path.
    static func describe(_ error: any Error) -> (place: String?, reason: String) {
        guard let decoding = error as? DecodingError else {
            return (nil, "not valid YAML or JSON: \(error)")
        }
        let context: DecodingError.Context
        switch decoding {
        case .dataCorrupted(let c), .keyNotFound(_, let c), .typeMismatch(_, let c), .valueNotFound(_, let c): context = c
        @unknown default: return (nil, "\(decoding)")
        }
        var reason = context.debugDescription
        if case .keyNotFound(let key, _) = decoding { reason = "'\(key.stringValue)' is missing" }
        if case .typeMismatch(let type, _) = decoding {
            // Yams words it in its own node names: "Expected to decode Scalar but found Sequence instead."
            let found = ["Sequence": "a list", "Mapping": "a mapping", "Scalar": "a single value"]
                .first { reason.contains("found \($0.key)") }?.value
            reason = "expected \(Self.typeName(type))" + (found.map { ", found \($0)" } ?? ": \(reason)")
        }
        if let underlying = context.underlyingError { reason += " (\(underlying))" }
        var path = context.codingPath
        var place: [String] = []
        if path.first?.stringValue == "steps", path.count > 1, let index = path[1].intValue {
            place.append("step \(index + 1)")
            path.removeFirst(2)
        }
        var rest = ""
        for key in path {
            if let index = key.intValue { rest += "[\(index)]" } else { rest += (rest.isEmpty ? "" : ".") + key.stringValue }
        }
        if !rest.isEmpty { place.append(rest) }
        return (place.isEmpty ? nil : place.joined(separator: ", "), reason)
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "text"
        case is Int.Type: "a whole number"
        case is Bool.Type: "true or false"
        case is Double.Type: "a number"
        case let other where "\(other)".hasSuffix("Scalar"): "a single value"
        default: "\(type)".lowercased().hasPrefix("array") ? "a list" : "\(type)"
        }
    }
}

/// The file as written.
private struct ScenarioFile: Decodable {
    let name: String?
    let description: String?
    let suite: String?
    let policy: MitigationPolicy?
    let steps: [ScenarioStep]

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: StepKey.self)
        try container.rejectUnknownKeys(allowed: Scenario.topKeys, in: "the scenario")
        name = try container.decodeIfPresent(String.self, "name")
        description = try container.decodeIfPresent(String.self, "description")
        suite = try container.decodeIfPresent(String.self, "suite")
        policy = try container.decodeIfPresent(MitigationPolicy.self, "policy")
        steps = try container.decode([ScenarioStep].self, "steps")
        if steps.isEmpty { throw container.failure("steps", "a scenario needs at least one step") }
    }
}

extension ScenarioStep {
    /// The bundle IDs the step names.
    var apps: [String] {
        switch self {
        case .operation(let step): [step.app]
        case .concurrent(let steps): steps.map(\.app)
        case .background(let job): [job.app]
        case .wait, .stop, .advanceClock, .device: []
        }
    }
}
