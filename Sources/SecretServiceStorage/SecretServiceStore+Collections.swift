import CLibsecret
import Foundation
import KeychainStorage

/// Where a group's items live and whether their collection is locked: the per-group
/// collections (found by the label gnome-keyring derives their path from, created with the
/// master password when missing) and the unlock after a daemon restart.
extension SecretServiceStore {
    /// Where a new item of `group` goes.
    func writableCollection(for group: String, _ service: ServiceHandle) throws -> String {
        guard let master = configuration.layout.masterPassword else { return configuration.layout.sharedCollection }
        guard let path = try resolveCollection(for: group, creatingWith: master, useCache: true, service) else {
            throw GLibFailure(call: "CreateWithMasterPassword", message: "no collection for access group '\(group)'")
        }
        return path
    }

    /// The collection whose lock decides whether `group`'s items can be seen.
    func relevantCollection(for group: String) -> String {
        guard configuration.layout.masterPassword != nil else { return configuration.layout.sharedCollection }
        return directory.cachedPath(for: group)
            ?? CollectionDirectory.expectedPath(forLabel: CollectionDirectory.label(for: group))
    }

    /// Finds `group`'s collection (at the path gnome-keyring derives from its label, else among
    /// `<path>_N` siblings it makes when the name was taken), creating it when `master` is given.
    func resolveCollection(
        for group: String, creatingWith master: String?, useCache: Bool, _ service: ServiceHandle
    ) throws -> String? {
        if useCache, let cached = directory.cachedPath(for: group) { return cached }
        let label = CollectionDirectory.label(for: group)
        let expected = CollectionDirectory.expectedPath(forLabel: label)
        var candidates = [expected]
        if try collectionLabel(expected, service) != label {
            candidates = try client.collectionPaths(service).filter { $0.hasPrefix(expected + "_5f") }.sorted()
        }
        for path in candidates where try collectionLabel(path, service) == label {
            directory.remember(path, for: group)
            return path
        }
        guard let master else { return nil }
        let created = try client.createCollection(service, label: label, masterPassword: master)
        logger.debug("created the collection of an access group", metadata: ["group": "\(group)", "path": "\(created)"])
        directory.remember(created, for: group)
        directory.noteUnlocked([created], epoch: service.owner)
        return created
    }

    func collectionLabel(_ path: String, _ service: ServiceHandle) throws -> String? {
        guard let value = try client.collectionProperty(service, path: path, name: "Label") else { return nil }
        defer { g_variant_unref(value) }
        return Variant.string(of: value)
    }

    /// The collection (or alias) is locked. If this store saw it unlocked during this run of the daemon,
    /// someone locked it (`.locked`) or the daemon restarted (reconnect). Otherwise, with a
    /// master password, unlock it and run the operation again.
    func handleLocked(_ alias: String, _ service: ServiceHandle) throws -> Never {
        // Name the real collection ("login"), as seen-unlocked records and users know it.
        var collection = alias
        if alias == CollectionDirectory.defaultAlias, let target = try client.readAlias(service, name: "default") {
            collection = target
        }
        let name = CollectionDirectory.displayName(of: collection)
        if directory.wasUnlocked(collection, epoch: service.owner) {
            if try client.nameOwner(service) != service.owner {
                throw GLibFailure(call: "GetNameOwner", message: "the Secret Service restarted", kind: .staleSession)
            }
            throw StorageError.locked(collection: name)
        }
        guard let master = configuration.layout.masterPassword else { throw StorageError.locked(collection: name) }
        do {
            try client.unlockCollection(service, path: collection, masterPassword: master)
        } catch {
            guard [.other, .noSuchObject, .locked].contains(error.kind) else { throw error }
            logger.debug("could not unlock a collection", metadata: ["collection": "\(name)", "reason": "\(error.message)"])
            throw StorageError.locked(collection: name)
        }
        logger.debug("unlocked a collection with the master password", metadata: ["collection": "\(name)"])
        directory.noteUnlocked([collection], epoch: service.owner)
        throw RetryOperation()
    }

    static func unique(_ groups: [String]) -> [String] {
        var seen = Set<String>()
        return groups.filter { seen.insert($0).inserted }
    }
}
