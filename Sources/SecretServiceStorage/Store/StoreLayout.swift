extension SecretServiceStore {
    /// Where items live in the Secret Service. Searches go service-wide either way (libsecret
    /// lookups search every collection), always by the `access-group` attribute.
    public enum Layout: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        /// Every item in the collection behind the `default` alias: the user's desktop keyring.
        /// Deletes go item by item.
        case defaultCollection
        /// Each access group in persistent collections of its own: shards of at most
        /// ``Configuration/shardCapacity`` items per protection class, found through the shard
        /// index beside the group's lock (see ``ShardIndex``), created (and unlocked after a
        /// daemon restart) with `masterPassword`, without a prompt, through gnome-keyring's
        /// private interface. A write costs what one shard holds; deleting a whole group
        /// deletes its shards, one call each. Only for a keyring this tool runs itself (see
        /// ``PrivateKeyring``).
        case collectionPerGroup(masterPassword: String)
        /// Every item in gnome-keyring's in-memory `session` collection, which a running daemon
        /// has unlocked and needs no prompt; nothing survives the daemon. Deletes go item by
        /// item. For benchmarks and throw-away runs.
        case sessionCollection

        /// Where new items go when the layout has no per-group collections: the `default`
        /// alias, or the `session` collection.
        var sharedCollection: String {
            self == .sessionCollection ? CollectionDirectory.sessionCollection : CollectionDirectory.defaultAlias
        }

        /// The master password of per-group collections, if any.
        public var masterPassword: String? {
            switch self {
            case .defaultCollection, .sessionCollection: nil
            case .collectionPerGroup(let masterPassword): masterPassword
            }
        }

        /// The layout's name; never the password.
        public var description: String {
            switch self {
            case .defaultCollection: "defaultCollection"
            case .collectionPerGroup: "collectionPerGroup(masterPassword: <redacted>)"
            case .sessionCollection: "sessionCollection"
            }
        }

        /// The same as ``description``: no password.
        public var debugDescription: String { description }

        /// Keeps the password out of `dump` and debugger views.
        public var customMirror: Mirror { Mirror(self, children: ["layout": description]) }
    }
}
