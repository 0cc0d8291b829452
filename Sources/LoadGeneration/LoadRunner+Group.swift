import SharedKeychain

extension LoadRunner {
    /// Checks the group before the run, runs `body`, then removes what the simulated apps
    /// created, whether the run succeeded or not.
    ///
    /// - Throws: ``LoadError/groupHoldsData(group:items:)`` before anything runs when the group
    ///   holds items and the configuration does not allow existing data.
    func withGroup(_ body: (Set<ItemKey>) throws -> LoadReport) throws -> LoadReport {
        let existing = try existingItems()
        var report: LoadReport
        do { report = try body(existing) } catch {
            // The run's own failure is the one to report; the clean-up is tried all the same.
            _ = cleanUp()
            throw error
        }
        report.cleanupFailure = cleanUp()
        return report
    }

    /// Whether the run reads only its own data, in a group that may hold others'
    /// (`--group G --allow-existing-data`): it then never reads the whole group, which for a
    /// group of 50,000 items takes gnome-keyring minutes, before or after the run.
    var checksOwnDataOnly: Bool { configuration.allowExistingData && !configuration.groupIsRunScoped }

    /// A token run that judges only its own users (``checksOwnDataOnly``).
    var checksOwnUsersOnly: Bool { configuration.workload == .token && checksOwnDataOnly }

    /// What the items workload's check reads: the whole group when it is the run's own or must
    /// be empty, else the load's items only (their service, which the keyring searches for).
    var itemsCheckQuery: KeychainQuery {
        checksOwnDataOnly
            ? KeychainQuery(group: configuration.group, service: LoadConfiguration.service)
            : .all(in: configuration.group)
    }

    /// The keys of the items in the group before the run (none in a group of the run's own; not
    /// read when only the run's own users are checked; of the load's items only when the group
    /// may hold others').
    private func existingItems() throws -> Set<ItemKey> {
        if checksOwnUsersOnly { return [] }
        let items = try keychain(ofApp: 0).copyAll(itemsCheckQuery)
        guard !items.isEmpty else { return [] }
        guard checksOwnDataOnly else {
            throw LoadError.groupHoldsData(group: configuration.group, items: items.count)
        }
        return Set(items.map { ItemKey(account: $0.account, service: $0.service) })
    }

    /// Deletes what the simulated apps created: the whole group when it is the run's own, else
    /// each app's own items (by the emulator's provenance) through its view, so the group's policy applies and an
    /// audited group journals the deletes. Returns why it failed, nil when it did not.
    private func cleanUp() -> String? {
        do {
            if configuration.groupIsRunScoped {
                let keychain = try keychain(ofApp: 0)
                do { try keychain.delete(.all(in: configuration.group)) } catch .itemNotFound {}
                return nil
            }
            for app in 0..<configuration.apps {
                let own = KeychainQuery(group: configuration.group, filters: .init(addedBy: LoadConfiguration.bundleID(ofApp: app)))
                let keychain = try keychain(ofApp: app)
                do { try keychain.delete(own) } catch .itemNotFound {}
            }
            return nil
        } catch {
            return "\(error)"
        }
    }
}
