import SharedKeychain

extension BlastRadius {
    /// An app with the Intune App SDK, and the group where that SDK reads the user's token.
    public struct IntuneReader: Sendable, Hashable {
        /// The app's bundle ID.
        public let bundleID: String
        /// The group the Intune App SDK reads, with the team prefix.
        public let group: String
        /// Whether that group is the one the app's own SDK keeps its cache in, and the app may
        /// use it: only then is there a token for enrolment to lose (else `suite check` reports
        /// intune-cache-group or keychain-group-entitled).
        public let readsTheCache: Bool
    }

    /// Another app that can delete the token the Intune App SDK reads for an app, which breaks
    /// that app's enrolment: MAM policy stops applying until the user signs in to it again.
    public struct IntuneExposure: Sendable, Hashable {
        /// The bundle ID of the app making the call.
        public let attacker: String
        /// The bundle ID of the app whose enrolment breaks.
        public let intuneApp: String
        /// The group the Intune App SDK reads, with the team prefix.
        public let group: String
        /// The calls that delete the token there, with why (the ways of the matrix's cell that
        /// delete tokens; the account-metadata race drops a sign-in state, not a token).
        public let ways: [Way]

        /// The calls of ``ways``.
        public var calls: [DestructiveCall] { ways.map(\.call) }
    }

    /// For every app whose Intune reads its token cache, the other apps that can delete the
    /// token there, in manifest order of the Intune app, then of the attacker.
    public var intuneExposures: [IntuneExposure] {
        intuneReaders.filter(\.readsTheCache).flatMap { reader -> [IntuneExposure] in
            guard let victim = appPosition(reader.bundleID) else { return [] }
            return apps.indices.compactMap { attacker -> IntuneExposure? in
                let ways = ways(attackerAt: attacker, victimAt: victim).filter { $0.call.deletesTokens }
                guard !ways.isEmpty else { return nil }
                return IntuneExposure(attacker: apps[attacker].bundleID, intuneApp: reader.bundleID, group: reader.group, ways: ways)
            }
        }
    }

    /// The Intune readers of `subjects`: the apps with `IntuneMAMSettings` (or `intune: true`).
    ///
    /// - Throws: ``SuiteManifestError/invalidValue(_:value:reason:)`` when an override makes no group.
    static func intuneReaders(of subjects: [BlastSubject]) throws(SuiteManifestError) -> [IntuneReader] {
        var readers: [IntuneReader] = []
        for subject in subjects {
            guard let group = try subject.app.intuneCacheGroup() else { continue }
            readers.append(IntuneReader(
                bundleID: subject.app.bundleID, group: group.rawValue, readsTheCache: subject.signsIn && group.rawValue == subject.cacheGroup))
        }
        return readers
    }
}

extension DestructiveCall {
    /// Whether the call deletes tokens (every call but the account-metadata race, which loses
    /// a sign-in state and leaves the tokens).
    var deletesTokens: Bool { self != .accountMetadataRace }
}

/// `{"readers": [{"app", "group", "reads_cache"}], "exposures": [{"attacker", "app", "group",
/// "calls"}]}`, the Intune part of `suite blast-radius --json`.
struct IntuneEnrolmentJSON: Encodable {
    struct Reader: Encodable {
        let app: String
        let group: String
        let readsCache: Bool

        enum CodingKeys: String, CodingKey {
            case app, group
            case readsCache = "reads_cache"
        }
    }

    struct Exposure: Encodable {
        let attacker: String
        let app: String
        let group: String
        let calls: [String]
    }

    let readers: [Reader]
    let exposures: [Exposure]

    init(_ radius: BlastRadius) {
        readers = radius.intuneReaders.map { Reader(app: $0.bundleID, group: $0.group, readsCache: $0.readsTheCache) }
        exposures = radius.intuneExposures.map {
            Exposure(attacker: $0.attacker, app: $0.intuneApp, group: $0.group, calls: $0.calls.map(\.rawValue))
        }
    }
}
