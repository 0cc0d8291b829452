/// Why a team ID, access group or bundle ID was refused. Every message quotes the value.
public enum AccessGroupError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidTeamID(String)
    case malformedGroup(entry: String, reason: String)
    case foreignTeam(entry: String, team: String, appTeam: String)
    case invalidBundleID(String)
    /// More access groups (keychain groups and app groups) than ``AppIdentity/maxAccessGroups``.
    case tooManyGroups(count: Int, limit: Int)

    public var description: String {
        switch self {
        case .invalidTeamID(let value):
            "'\(value)' is not a team ID: it must be 10 upper-case letters or digits, like 'ABCDE12345'"
        case .malformedGroup(let entry, let reason):
            "access group '\(entry)' is malformed: \(reason)"
        case .foreignTeam(let entry, let team, let appTeam):
            "access group '\(entry)' belongs to team \(team), but the app's team is \(appTeam); an app can only be entitled to its own team's groups"
        case .invalidBundleID(let value):
            "'\(value)' is not a bundle ID: use letters, digits, '-' and '.', like 'com.contoso.mail'"
        case .tooManyGroups(let count, let limit):
            "the app lists \(count) access groups (keychain groups and app groups); at most \(limit) are supported (real apps list a handful; every ungrouped query searches each one)"
        }
    }
}
