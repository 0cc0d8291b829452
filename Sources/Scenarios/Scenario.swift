import Foundation
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
        case .launch(let launch): [launch.app]
        case .wait, .stop, .advanceClock, .device: []
        }
    }
}

/// Why a scenario could not be read or run. Bad input is errSecParam; an app process that
/// failed is errSecIO.
public enum ScenarioError: Error, Sendable, Equatable, CustomStringConvertible, StatusReporting {
    /// The file cannot be read.
    case unreadable(path: String, reason: String)
    /// The file is not a scenario: bad syntax, an unknown key, a wrong type; `at` is the place
    /// (`step 4, expect.count`), when known.
    case malformed(path: String, at: String?, reason: String)
    /// A step refers to something that does not exist or cannot work (an unknown app, a job
    /// not started); `step` is 1-based.
    case invalidStep(path: String, step: Int, reason: String)
    /// The scenario's suite manifest cannot be used.
    case suite(SuiteManifestError)
    /// A simulated app could not be started, or went away during the run.
    case appFailed(app: String, reason: String)

    /// What is wrong and where.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read the scenario \(path): \(reason)"
        case .malformed(let path, let at, let reason): "\(path): " + (at.map { "\($0): " } ?? "") + reason
        case .invalidStep(let path, let step, let reason): "\(path): step \(step): \(reason)"
        case .suite(let error): error.description
        case .appFailed(let app, let reason): "simulated app \(app) failed: \(reason)"
        }
    }

    /// The description.
    public var message: String { description }

    /// errSecParam for bad input, errSecIO for a failed app.
    public var status: KeychainStatus {
        switch self {
        case .unreadable, .malformed, .invalidStep, .suite: .param
        case .appFailed: .io
        }
    }
}

/// Checks what decoding cannot: that every app is in the suite, that `delay` is used only
/// inside `concurrent`, and that `wait` and `stop` name a job that runs at that point.
struct ScenarioValidator {
    let scenario: Scenario

    func validate() throws(ScenarioError) {
        var running: [String: BackgroundJob] = [:]
        var started: Set<String> = []
        for (index, step) in scenario.steps.enumerated() {
            let number = index + 1
            for app in step.apps {
                do { _ = try scenario.suite.app(bundleID: app) } catch {
                    throw invalid(number, "\(error.description)")
                }
            }
            switch step {
            case .operation(let step):
                if step.delay != nil { throw invalid(number, "delay only applies inside concurrent") }
            case .concurrent:
                break
            case .background(let job):
                guard !started.contains(job.name) else {
                    throw invalid(number, "a job named '\(job.name)' was started before; give each job its own name")
                }
                started.insert(job.name)
                running[job.name] = job
            case .wait(.time):
                break
            case .wait(.job(let name, let runs)):
                guard let job = running[name] else { throw invalid(number, notRunning(name, started: started)) }
                if let times = job.times, let runs, runs > times {
                    throw invalid(number, "job '\(name)' runs \(times) times, so it never reaches \(runs) runs")
                }
                if job.times == nil, runs == nil {
                    throw invalid(number, "job '\(name)' runs until stopped: wait for a number of its runs ({job: \(name), runs: N})")
                }
            case .stop(let name, _):
                guard running.removeValue(forKey: name) != nil else { throw invalid(number, notRunning(name, started: started)) }
            case .advanceClock, .device, .launch:
                break
            }
        }
    }

    private func notRunning(_ name: String, started: Set<String>) -> String {
        started.contains(name)
            ? "job '\(name)' was stopped before this step"
            : "no job named '\(name)' is started before this step (start it with background: \(name))"
    }

    private func invalid(_ step: Int, _ reason: String) -> ScenarioError {
        .invalidStep(path: scenario.file.path, step: step, reason: reason)
    }
}
