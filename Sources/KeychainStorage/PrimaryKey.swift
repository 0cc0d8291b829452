/// What makes a generic-password item unique in Keychain Services: account, service and access
/// group. Generic, type, label and creator are not part of it.
public struct PrimaryKey: Hashable, Sendable, Codable, CustomStringConvertible {
    public var group: String
    public var account: String
    public var service: String

    public init(group: String, account: String, service: String) {
        self.group = group
        self.account = account
        self.service = service
    }

    public var description: String {
        "account '\(account)', service '\(service)' in group '\(group)'"
    }
}
