import SharedKeychain
import TokenCache

/// Whether the keychain kept every acknowledged change of a run, worked out from the apps'
/// journals and one listing of the group afterwards.
///
/// Each key has one writer (its app), so its journal is in order. For the last acknowledged
/// change of a key:
/// - a write of version v: the item must hold v, or be gone because a wipe ended after the
///   write began; an older version, or absence without such a wipe, is a **lost update**;
/// - a delete: the item must be absent; an item holding an acknowledged version is
///   **resurrected**.
/// A version newer than any acknowledged one came from a call that failed (a timeout, say)
/// after it took effect: counted apart, as unacknowledged.
public struct ConsistencyReport: Sendable, Codable, Hashable {
    public var keysChecked = 0
    public var itemsPresent = 0
    public var lostUpdates = 0
    public var resurrectedItems = 0
    public var unacknowledgedWrites = 0
    /// Items in the group that no simulated app could have written.
    public var foreignItems = 0
    /// Items that were in the group before the run (`--allow-existing-data`) and are not the
    /// simulated apps': not checked, not foreign.
    public var existingItems = 0
    /// Token cache items the apps' caches wrote (not checked here): MSAL's team-ID probe, which
    /// each app's cache finds or adds in its first group, and what `acquire` operations wrote.
    public var tokenCacheItems = 0
    /// Items workload: only the load's items were read (their service), not the whole group,
    /// which may hold others' data (`--group G --allow-existing-data`); other items written
    /// during the run (token cache items of `acquire`) are then not counted.
    public var ownItemsOnly = false
    /// Token workload: users whose sign-ins and removals were checked against the account list.
    public var accountsChecked = 0
    /// Token workload: accounts the list showed at the end (with ``ownUsersOnly``, of the users
    /// checked).
    public var accountsListed = 0
    /// Token workload: only the run's own users were read and judged, as the account list
    /// decides for each (a group that may hold other data: `--group G --allow-existing-data`),
    /// not the whole list.
    public var ownUsersOnly = false
    /// Token workload: acknowledged sign-ins the emulator lost: missing from the account list, or
    /// without their account record or refresh token, with no removal or wipe after them, and
    /// not explained by MSAL's read-modify-write of the account metadata
    /// (``accountMetadataEntriesLost``).
    public var lostSignIns = 0
    /// Token workload: accounts listed although their last acknowledged change removed them, not
    /// explained by MSAL's read-modify-write of the account metadata.
    public var resurrectedAccounts = 0
    /// Token workload: account-metadata entries lost to MSAL's read-modify-write, expected on a
    /// device. Every app of one client ID read-modify-writes the client's one account-metadata
    /// item (type 5001) on each token response and removal, without a lock
    /// (`MSIDAccountMetadataCacheAccessor`), so two apps signing users in at once can each write
    /// back a copy without the other's entry. Counted: a user whose last acknowledged sign-in
    /// kept its account record and refresh token but whose entry is not `signed_in` (listed
    /// through the token when the entry is gone, hidden when a stale `signed_out` came back), and
    /// a removed user listed through a stale `signed_in` entry, while another app of the client
    /// ID was at work. Not an inconsistency of the emulator.
    public var accountMetadataEntriesLost = 0
    /// Token workload: of ``accountMetadataEntriesLost``, the users the account list no longer
    /// showed (or showed after their removal) because of it.
    public var accountsMislistedByLostMetadata = 0

    public var isConsistent: Bool {
        lostUpdates == 0 && resurrectedItems == 0 && foreignItems == 0 && lostSignIns == 0 && resurrectedAccounts == 0
    }

    public init() {}

    /// The token workload's check: every acknowledged sign-in must be in the account list at the
    /// end, unless a removal of that user or a wipe ended after the sign-in began; a user whose
    /// last acknowledged change was a removal, with no wipe or sign-in racing it, must not be.
    /// With ``TokenAccountsAfterRun``, a user the list gets wrong only because the shared
    /// account-metadata item lost the user's entry to another app's read-modify-write is counted
    /// apart, in ``accountMetadataEntriesLost``.
    ///
    /// - Parameters:
    ///   - journals: each app's acknowledged sign-ins, removals and wipes.
    ///   - prefill: the sign-ins made before the run (key: the prefilled account's number).
    ///   - listed: the usernames the account list shows after the run.
    ///   - accounts: what the group holds for each user after the run; nil: judge by the list only.
    public init(
        tokenJournals journals: [Int: [JournalEntry]], prefill: [JournalEntry], listed: Set<String>,
        accounts: TokenAccountsAfterRun? = nil, configuration: LoadConfiguration
    ) {
        let wipes = journals.values.flatMap { $0.filter { $0.kind == .wipe } }
        func wipedAfter(_ entry: JournalEntry) -> Bool { wipes.contains { $0.end > entry.start } }
        for entry in prefill {
            accountsChecked += 1
            let user = LoadConfiguration.prefilledUser(entry.key)
            // Made before any app started: no read-modify-write of another app can have lost it.
            if !wipedAfter(entry), !listed.contains(user) || accounts?.states[user].map({ !$0.keptSignIn }) == true { lostSignIns += 1 }
        }
        for app in 0..<configuration.apps {
            var last: [Int: JournalEntry] = [:]
            for entry in journals[app] ?? [] where entry.kind == .signIn || entry.kind == .removeAccount {
                last[entry.key] = entry
            }
            for (key, entry) in last {
                accountsChecked += 1
                let user = LoadConfiguration.user(app: app, key: key)
                let state = accounts?.states[user]
                let raced = accounts?.anotherAppWorked(besides: app, during: entry) ?? false
                let isListed = listed.contains(user)
                switch entry.kind {
                case .signIn where !wipedAfter(entry):
                    guard accounts != nil else {
                        if !isListed { lostSignIns += 1 }
                        continue
                    }
                    guard let state, state.hasTokens else {
                        // The account record or refresh token, which only this app writes, is gone.
                        lostSignIns += 1
                        continue
                    }
                    if state.metadata == .signedIn {
                        if !isListed { lostSignIns += 1 }
                    } else if raced {
                        accountMetadataEntriesLost += 1
                        if !isListed { accountsMislistedByLostMetadata += 1 }
                    } else {
                        lostSignIns += 1
                    }
                case .removeAccount where isListed:
                    if let state, !state.hasTokens, state.metadata == .signedIn, raced {
                        accountMetadataEntriesLost += 1
                        accountsMislistedByLostMetadata += 1
                    } else {
                        resurrectedAccounts += 1
                    }
                default:
                    break
                }
            }
        }
        accountsListed = listed.count
    }

    /// The items workload's check.
    /// - Parameter existing: the keys of the items in the group before the run.
    public init(journals: [Int: [JournalEntry]], finalItems: [KeychainItem], configuration: LoadConfiguration, existing: Set<ItemKey> = []) {
        var present: [Int: [Int: Int]] = [:]
        let acquires = configuration.mix.percentages[.acquire] != nil
        var finalItems = finalItems
        if !existing.isEmpty {
            finalItems.removeAll { item in
                let earlier = existing.contains(ItemKey(account: item.account, service: item.service))
                    && (item.service != LoadConfiguration.service || ItemValue(decoding: item.data) == nil)
                if earlier { existingItems += 1 }
                return earlier
            }
        }
        for item in finalItems {
            // Every app's token cache probes for its team ID first, and its first group is this one.
            if acquires && item.service != LoadConfiguration.service || TokenCache.isTeamIDProbe(item) {
                tokenCacheItems += 1
                continue
            }
            guard item.service == LoadConfiguration.service, let value = ItemValue(decoding: item.data),
                  item.account == LoadConfiguration.account(app: value.app, key: value.key)
            else {
                foreignItems += 1
                continue
            }
            present[value.app, default: [:]][value.key] = value.version
        }
        itemsPresent = finalItems.count - foreignItems - tokenCacheItems
        let wipes = journals.values.flatMap { $0.filter { $0.kind == .wipe } }
        for app in 0..<configuration.apps {
            var last: [Int: JournalEntry] = [:]
            var highestAcknowledged: [Int: Int] = [:]
            for entry in journals[app] ?? [] where entry.kind != .wipe {
                last[entry.key] = entry
                if entry.kind == .write { highestAcknowledged[entry.key] = max(highestAcknowledged[entry.key] ?? 0, entry.version) }
            }
            for key in 0..<configuration.itemsPerApp {
                keysChecked += 1
                let found = present[app]?[key]
                let acknowledged = highestAcknowledged[key] ?? 0
                switch (last[key], found) {
                case (nil, nil):
                    break
                case (nil, .some):
                    unacknowledgedWrites += 1
                case (let entry?, nil) where entry.kind == .write:
                    if !wipes.contains(where: { $0.end > entry.start }) { lostUpdates += 1 }
                case (let entry?, let version?) where entry.kind == .write:
                    if version < entry.version { lostUpdates += 1 } else if version > entry.version { unacknowledgedWrites += 1 }
                case (_, let version?):
                    // The last acknowledged change was a delete.
                    if version <= acknowledged { resurrectedItems += 1 } else { unacknowledgedWrites += 1 }
                default:
                    break
                }
            }
        }
    }
}

/// An item's account and service: which items were in a group before a run.
public struct ItemKey: Sendable, Hashable {
    public var account: String
    public var service: String

    public init(account: String, service: String) {
        self.account = account
        self.service = service
    }
}
