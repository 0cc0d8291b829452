extension BlastRadius {
    /// The apps in groups that share the same exposure: for any two groups A and B, every app of
    /// A can destroy every app of B (other than itself) by the same calls, and is exposed to
    /// them by the same calls. This is what lets a suite of hundreds of apps be drawn as a
    /// matrix of a handful of groups without losing a cell.
    ///
    /// Found from the cells alone, whatever rule made them: apps are split by what they can do
    /// to, and suffer from, each group until nothing changes, then any block whose pairs still
    /// differ is split (so in the worst case every app is a group of its own). Each round costs
    /// one look at every pair.
    var exposureGroups: ExposureGroups { ExposureGroups(self) }
}

/// ``BlastRadius/exposureGroups``: apps (by index into ``BlastRadius/apps``) grouped by their
/// exposure, groups in the manifest order of their first app, and the calls between groups.
struct ExposureGroups {
    /// Each group's apps, by index into ``BlastRadius/apps``, in manifest order.
    let members: [[Int]]
    /// The group of each app, by index into ``members``.
    let groupOfApp: [Int]
    /// The calls by which app `attacker` can destroy app `victim`'s sign-in, as bits in
    /// ``DestructiveCall`` order: `masks[attacker * appCount + victim]`.
    private let masks: [Int]
    private let appCount: Int

    init(_ radius: BlastRadius) {
        let count = radius.apps.count
        appCount = count
        let appIndex = Dictionary(radius.apps.indices.map { (radius.apps[$0].bundleID, $0) }, uniquingKeysWith: { first, _ in first })
        var masks = [Int](repeating: 0, count: count * count)
        for cell in radius.cells {
            guard let attacker = appIndex[cell.attacker], let victim = appIndex[cell.victim] else { continue }
            masks[attacker * count + victim] = Self.mask(cell.calls)
        }
        self.masks = masks
        var group = Self.refined([Int](repeating: 0, count: count), masks: masks, count: count)
        while let split = Self.splitNonUniformBlock(group, masks: masks, count: count) {
            group = Self.refined(split, masks: masks, count: count)
        }
        // Groups numbered in the manifest order of their first app.
        var renumbered: [Int: Int] = [:]
        var members: [[Int]] = []
        groupOfApp = group.indices.map { app in
            if let known = renumbered[group[app]] {
                members[known].append(app)
                return known
            }
            renumbered[group[app]] = members.count
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
        let bits = masks[from * appCount + to]
        return DestructiveCall.allCases.enumerated().filter { bits & (1 << $0.offset) != 0 }.map(\.element)
    }

    private static func mask(_ calls: [DestructiveCall]) -> Int {
        calls.reduce(0) { bits, call in bits | (1 << (DestructiveCall.allCases.firstIndex(of: call) ?? 0)) }
    }

    /// Splits groups until every app of a group sees the same set of (other app's group, calls
    /// to it, calls from it) as the others of its group.
    private static func refined(_ start: [Int], masks: [Int], count: Int) -> [Int] {
        let bits = DestructiveCall.allCases.count
        var group = start
        var groupCount = Set(group).count
        while true {
            var keys: [[Int]: Int] = [:]
            let next = (0..<count).map { app -> Int in
                var seen = Set<Int>()
                for other in 0..<count where other != app {
                    seen.insert((group[other] << (2 * bits)) | (masks[app * count + other] << bits) | masks[other * count + app])
                }
                let key = [group[app]] + seen.sorted()
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
    private static func splitNonUniformBlock(_ group: [Int], masks: [Int], count: Int) -> [Int]? {
        // Each block's first pair, then every other pair compared with it.
        var firstPairs: [Int: (attacker: Int, mask: Int)] = [:]
        let groupCount = (group.max() ?? 0) + 1
        for attacker in 0..<count {
            for victim in 0..<count where victim != attacker {
                let block = group[attacker] * groupCount + group[victim]
                let mask = masks[attacker * count + victim]
                guard let first = firstPairs[block] else {
                    firstPairs[block] = (attacker, mask)
                    continue
                }
                guard first.mask != mask else { continue }
                var split = group
                if first.attacker != attacker {
                    // Two apps of one group differ: the later one becomes a group of its own.
                    split[attacker] = groupCount
                    return split
                }
                // One app treats two apps of one group differently: split that group by its calls.
                var newGroups: [Int: Int] = [:]
                for app in 0..<count where group[app] == group[victim] {
                    let key = app == attacker ? -1 : masks[attacker * count + app]
                    split[app] = newGroups[key] ?? {
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
