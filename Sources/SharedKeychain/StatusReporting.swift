import KeychainStorage

/// An error that stands for a Keychain Services status, with a message a person can act on.
/// Tools built on the library (the CLI among them) report every failure through it.
public protocol StatusReporting: Error {
    var status: KeychainStatus { get }
    var message: String { get }
    /// A finer code than the status, where the failure has a name of its own in the SDKs it
    /// emulates (`interaction_required`); nil otherwise.
    var errorCode: String? { get }
}

extension StatusReporting {
    public var errorCode: String? { nil }
}

extension KeychainError: StatusReporting {}

extension AccessGroupError: StatusReporting {
    public var status: KeychainStatus { .param }
    public var message: String { description }
}

extension EntitlementsError: StatusReporting {
    public var status: KeychainStatus { .param }
    public var message: String { description }
}

extension StorageError: StatusReporting {
    public var status: KeychainStatus { KeychainError(self).status }
    public var message: String { description }
}
