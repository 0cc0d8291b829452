@_exported import KeychainStorage

/// A generic-password item as the keychain returns it: attributes and data.
public typealias KeychainItem = StoredItem
