import SharedKeychain

/// The apps of a suite as the ``DestructiveCall`` rules tell them apart: apps with one profile
/// (SDK, client ID as spelled, family, cache group, and which of the suite's cache groups their
/// entitlements reach) have the same ways to and from every other app, with the same reasons,
/// since no rule reads or names the bundle ID. The rules run once per pair of profiles, so a
/// suite costs apps × groups to sort into profiles plus profiles² rule runs, not apps².
struct BlastProfiles: Sendable, Hashable {
    /// Each app's profile, by index into the profiles; profiles are numbered in the manifest
    /// order of their first app.
    let profileOfApp: [Int]
    /// How many apps each profile has: a profile of one app has no pair with itself.
    let appCounts: [Int]
    /// `ways[attacker * count + victim]`: the ways an app of profile `attacker` has against
    /// another app of profile `victim` (the same profile too: two of its apps).
    private let ways: [[BlastRadius.Way]]
    /// The calls of ``ways`` as bits in ``DestructiveCall`` order, same layout.
    private let masks: [Int]

    /// Everything `way(from:to:)` reads about an app, on either side of a pair.
    private struct Profile: Hashable {
        let sdk: IdentitySDK
        let clientID: String
        let familyID: String?
        let cacheGroup: String
        /// The suite's cache groups (by index) the entitlements reach: the attacker's
        /// `isEntitled(to:)` is only ever asked about a victim's cache group.
        let entitledCacheGroups: [Int]
    }

    init(_ subjects: [BlastSubject]) {
        var groupIndex: [String: Int] = [:]
        for subject in subjects where groupIndex[subject.cacheGroup] == nil { groupIndex[subject.cacheGroup] = groupIndex.count }
        var profileIndex: [Profile: Int] = [:]
        var representatives: [BlastSubject] = []
        var appCounts: [Int] = []
        profileOfApp = subjects.map { subject in
            let entitled = Set(subject.identity.accessGroupNames.compactMap { groupIndex[$0] }).sorted()
            let profile = Profile(sdk: subject.app.sdk, clientID: subject.app.clientID, familyID: subject.app.familyID,
                                  cacheGroup: subject.cacheGroup, entitledCacheGroups: entitled)
            if let known = profileIndex[profile] {
                appCounts[known] += 1
                return known
            }
            profileIndex[profile] = representatives.count
            representatives.append(subject)
            appCounts.append(1)
            return representatives.count - 1
        }
        self.appCounts = appCounts
        // A rule applied to a profile's representative with itself is the rule applied to two
        // of its apps: no rule compares the apps themselves.
        ways = representatives.flatMap { attacker in
            representatives.map { victim in DestructiveCall.allCases.compactMap { $0.way(from: attacker, to: victim) } }
        }
        masks = ways.map { ways in ways.reduce(0) { $0 | $1.call.bit } }
    }

    /// How many profiles there are.
    var count: Int { appCounts.count }

    /// The ways an app of profile `attacker` has against another app of profile `victim`.
    func ways(attacker: Int, victim: Int) -> [BlastRadius.Way] { ways[attacker * count + victim] }

    /// The calls of ``ways(attacker:victim:)`` as bits in ``DestructiveCall`` order.
    func mask(attacker: Int, victim: Int) -> Int { masks[attacker * count + victim] }
}

extension DestructiveCall {
    /// The call's bit in a set of calls kept as an `Int`, in ``DestructiveCall`` order.
    var bit: Int { 1 << (Self.allCases.firstIndex(of: self) ?? 0) }
}
