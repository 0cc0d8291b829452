/// The `kSecAttrType` numbers of cache items.
enum ItemType {
    /// Credentials are 2000 + the credential type (see ``CredentialType``).
    static let credentials: ClosedRange<Int> = 2001...2003
    /// Accounts are 1000 + the authority type (see ``AuthorityType``).
    static let accounts: ClosedRange<Int> = 1001...1004
    static let appMetadata = 3001
    /// Per-client, per-account sign-in state. The SDK keeps this in one item per client holding
    /// a map of accounts; the emulator gives each account its own item so that no two sign-ins
    /// ever read-modify-write one shared item.
    static let signInState = 4001
}
