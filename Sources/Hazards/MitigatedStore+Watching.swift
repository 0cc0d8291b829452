import SharedKeychain

extension MitigatedStore: ItemWatching {
    /// The base store's watch: mitigations change what deletes do, not what is reported, so an
    /// app under a policy still learns at once that its tokens were wiped.
    public func watch(groups: [String]) throws(StorageError) -> ItemWatch {
        guard let watchable = base as? any ItemWatching else {
            throw .unavailable("the '\(base.name)' store cannot be watched: it does not report changes")
        }
        return try watchable.watch(groups: groups)
    }
}
