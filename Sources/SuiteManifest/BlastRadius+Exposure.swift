extension BlastRadius {
    /// The apps in groups that share the same exposure: for any two groups A and B, every app of
    /// A can destroy every app of B (other than itself) by the same calls, and is exposed to
    /// them by the same calls. This is what lets a suite of hundreds of apps be drawn as a
    /// matrix of a handful of groups without losing a cell.
    ///
    /// Found from the ways between app profiles, whatever rule made them: profiles are split by
    /// what their apps can do to, and suffer from, each group until nothing changes, then any
    /// block whose pairs still differ is split (so in the worst case every profile is a group
    /// of its own). Each round costs one look at every pair of profiles.
    var exposureGroups: ExposureGroups { ExposureGroups(self) }
}

/// ``BlastRadius/exposureGroups``: apps (by index into ``BlastRadius/apps``) grouped by their
/// exposure, groups in the manifest order of their first app, and the calls between groups.
///
/// Apps of one profile (``BlastProfiles``) have the same calls to and from every other app, so
/// they are never told apart: the groups are found over the profiles, each counting as many
/// apps as it has (a profile of several apps also has pairs with itself, one of a single app
/// none), and cost profiles², not apps², per round.
struct ExposureGroups {
    /// Each group's apps, by index into ``BlastRadius/apps``, in manifest order.
    let members: [[Int]]
    /// The group of each app, by index into ``members``.
    let groupOfApp: [Int]
    private let profiles: BlastProfiles

    init(_ radius: BlastRadius) {
        let profiles = radius.profiles
        self.profiles = profiles
        var group = Self.refined([Int](repeating: 0, count: profiles.count), profiles)
        while let split = Self.splitNonUniformBlock(group, profiles) {
            group = Self.refined(split, profiles)
        }
        // Groups numbered in the manifest order of their first app.
        var renumbered: [Int: Int] = [:]
        var members: [[Int]] = []
        groupOfApp = profiles.profileOfApp.indices.map { app in
            let profileGroup = group[profiles.profileOfApp[app]]
            if let known = renumbered[profileGroup] {
                members[known].append(app)
                return known
            }
            renumbered[profileGroup] = members.count
            members.append([app])
            return members.count - 1
        }
        self.members = members
    }

    /// The calls by which every app of group `attacker` can destroy the sign-in of every other
    /// app of group `victim`, in ``DestructiveCall`` order; empty when none, or when `attacker`
    /// and `victim` are one group of a single app (only itself).
    func calls(attacker: Int, victim: Int) -> [DestructiveCall] {
        guard let from = members[attacker].first, let to = members[victim].first(where: { $0 != from }) else { return [] }
        let bits = profiles.mask(attacker: profiles.profileOfApp[from], victim: profiles.profileOfApp[to])
        return DestructiveCall.allCases.filter { bits & $0.bit != 0 }
    }

    /// Whether two different apps of `profile` make a pair: it has more than one app.
    private static func hasOwnPairs(_ profile: Int, _ profiles: BlastProfiles) -> Bool { profiles.appCounts[profile] > 1 }

    /// Splits groups until every profile of a group sees the same set of (other app's group,
    /// calls to it, calls from it) as the others of its group, over the apps other than one of
    /// its own: the other profiles' apps, and its own other apps if it has any.
    private static func refined(_ start: [Int], _ profiles: BlastProfiles) -> [Int] {
        let bits = DestructiveCall.allCases.count
        let count = profiles.count
        var group = start
        var groupCount = Set(group).count
        while true {
            var keys: [[Int]: Int] = [:]
            let next = (0..<count).map { profile -> Int in
                var seen = Set<Int>()
                for other in 0..<count where other != profile || hasOwnPairs(profile, profiles) {
                    let to = profiles.mask(attacker: profile, victim: other), from = profiles.mask(attacker: other, victim: profile)
                    seen.insert((group[other] << (2 * bits)) | (to << bits) | from)
                }
                let key = [group[profile]] + seen.sorted()
                if let known = keys[key] { return known }
                keys[key] = keys.count
                return keys.count - 1
            }
            if keys.count == groupCount { return next }
            group = next
            groupCount = keys.count
        }
    }

    /// The first block (attacker group, victim group) whose pairs do not all have the same calls,
    /// split so that the next refinement makes progress; nil when every block is uniform.
    private static func splitNonUniformBlock(_ group: [Int], _ profiles: BlastProfiles) -> [Int]? {
        // Each block's first pair, then every other pair compared with it.
        var firstPairs: [Int: (attacker: Int, mask: Int)] = [:]
        let count = profiles.count
        let groupCount = (group.max() ?? 0) + 1
        for attacker in 0..<count {
            for victim in 0..<count where victim != attacker || hasOwnPairs(attacker, profiles) {
                let block = group[attacker] * groupCount + group[victim]
                let mask = profiles.mask(attacker: attacker, victim: victim)
                guard let first = firstPairs[block] else {
                    firstPairs[block] = (attacker, mask)
                    continue
                }
                guard first.mask != mask else { continue }
                var split = group
                if first.attacker != attacker {
                    // Two profiles of one group differ: the later one becomes a group of its own.
                    split[attacker] = groupCount
                    return split
                }
                // One profile treats two of one group differently: split that group by its
                // calls (to its own other apps, or none when it has no other).
                var newGroups: [Int: Int] = [:]
                for profile in 0..<count where group[profile] == group[victim] {
                    let key = profile == attacker && !hasOwnPairs(attacker, profiles) ? -1 : profiles.mask(attacker: attacker, victim: profile)
                    split[profile] = newGroups[key] ?? {
                        newGroups[key] = groupCount + newGroups.count
                        return groupCount + newGroups.count - 1
                    }()
                }
                return split
            }
        }
        return nil
    }
}
