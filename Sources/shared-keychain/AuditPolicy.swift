import ArgumentParser
import Foundation
import Hazards
import Mitigations
import SharedKeychain

/// Where the mitigation policy comes from: `--policy FILE`, else `policy.json` in the state
/// directory when it exists, else none (Apple's behaviour).
struct AuditPolicyOptions: ParsableArguments {
    @Option(name: .customLong("policy"), help: ArgumentHelp(
        "A mitigation policy (JSON): per access group, the mitigations on and the privileged bundle IDs.",
        discussion: #"Default: policy.json in the state directory, if any. Format: {"groups": {"<team>.<group>": {"mitigations": ["audit", "guarded-delete"], "privileged": ["com.microsoft.azureauthenticator"]}}}"#,
        valueName: "file"))
    var policy: String?

    static let fileName = "policy.json"

    func load(_ global: GlobalOptions) throws -> MitigationPolicy {
        if let policy { return try MitigationPolicy.load(from: URL(fileURLWithPath: policy)) }
        let stored = global.stateDirectoryURL.appendingPathComponent(Self.fileName)
        guard FileManager.default.fileExists(atPath: stored.path) else { return .none }
        return try MitigationPolicy.load(from: stored)
    }
}

extension KeychainSession {
    /// The app's keychain with `policy`'s mitigations applied (the plain keychain when the
    /// policy names no group), for commands that delete on an app's behalf.
    func keychain(for app: AppIdentity, policy: MitigationPolicy, adHoc: Bool = false) -> Keychain {
        guard !policy.groups.isEmpty else { return keychain(for: app) }
        return Keychain(app: app, store: MitigatedStore(base: store, app: app.bundleID, policy: policy, adHoc: adHoc))
    }
}
