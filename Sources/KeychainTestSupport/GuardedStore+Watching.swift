import KeychainStorage
import SecretServiceStorage

extension GuardedStore: ItemWatching {
    /// ``SecretServiceStore``'s watch, started once no test holds exclusive access. The watch
    /// itself is not guarded: it only listens.
    public func watch(groups: [String]) throws(StorageError) -> ItemWatch {
        try AccessLock.shared.shared { () throws(StorageError) in try base.watch(groups: groups) }
    }
}
