import Foundation

/// One cloud of the instance-discovery answer: where requests go (`preferred_network`), the
/// environment the cache keys items by (`preferred_cache`) and every host that names the cloud
/// (`aliases`), as IdentityCore keeps a metadata entry (`MSIDAadAuthorityCacheRecord`).
public struct CloudInstance: Sendable, Hashable {
    /// `preferred_network`: the host requests are sent to.
    public let preferredNetwork: String
    /// `preferred_cache`: the environment every item of the cloud is written under.
    public let preferredCache: String
    /// `aliases`: the hosts that name this cloud, in the answer's order.
    public let aliases: [String]

    /// - Parameters: the entry's fields, as the discovery answer gives them.
    public init(preferredNetwork: String, preferredCache: String, aliases: [String]) {
        self.preferredNetwork = CacheKey.normalized(preferredNetwork)
        self.preferredCache = CacheKey.normalized(preferredCache)
        self.aliases = aliases.map(CacheKey.normalized)
    }

    /// The environments a lookup from `environment` matches, in IdentityCore's order
    /// (`MSIDAadAuthorityCache cacheAliasesForEnvironmentImpl`): the preferred cache first, then
    /// the environment asked for when it differs, then the other aliases.
    public func cacheAliases(for environment: String) -> EnvironmentAliases {
        let asked = CacheKey.normalized(environment)
        var ordered = [preferredCache]
        if asked != preferredCache { ordered.append(asked) }
        // The SDK's loop skips only the asked environment (it compares with it twice), so the
        // preferred cache can come again; a repeated alias matches nothing more, so it is dropped.
        for alias in aliases where alias != asked && !ordered.contains(alias) { ordered.append(alias) }
        return EnvironmentAliases(ordered)
    }
}

/// The environments a query matches (`MSIDDefaultCredentialCacheQuery environmentAliases`),
/// compared as the SDK compares them: trimmed and case-insensitive.
public struct EnvironmentAliases: Sendable, Hashable, CustomStringConvertible {
    /// In lookup order, normalized.
    public let ordered: [String]

    /// - Parameter environments: the aliases, in lookup order.
    public init(_ environments: [String]) {
        ordered = environments.map(CacheKey.normalized)
    }

    /// Whether `environment` is one of them (`msidIsEquivalentWithAnyAlias`).
    public func contains(_ environment: String) -> Bool {
        ordered.contains(CacheKey.normalized(environment))
    }

    /// The aliases joined with commas.
    public var description: String { ordered.joined(separator: ", ") }
}

/// AAD instance discovery with no network: the answer Microsoft's discovery endpoint
/// (`/common/discovery/instance?api-version=1.1`) gives, which IdentityCore caches per alias
/// (`MSIDAadAuthorityCache processImpl`), and the hosts it trusts without asking
/// (`MSIDAADNetworkConfiguration trustedHosts`).
public enum InstanceDiscovery {
    /// The discovery answer's `metadata`: the public cloud, China (21Vianet), Germany, the US
    /// Government clouds. MSAL's test mock (`MSIDTestURLResponse+MSAL.m`
    /// `discoveryResponseForAuthority`) gives a subset: the public cloud with the aliases
    /// `login.microsoftonline.com` and `login.windows.net`, and Germany.
    public static let clouds: [CloudInstance] = [
        CloudInstance(
            preferredNetwork: "login.microsoftonline.com", preferredCache: "login.windows.net",
            aliases: ["login.microsoftonline.com", "login.windows.net", "login.microsoft.com", "sts.windows.net"]),
        CloudInstance(
            preferredNetwork: "login.partner.microsoftonline.cn", preferredCache: "login.partner.microsoftonline.cn",
            aliases: ["login.partner.microsoftonline.cn", "login.chinacloudapi.cn"]),
        CloudInstance(preferredNetwork: "login.microsoftonline.de", preferredCache: "login.microsoftonline.de", aliases: ["login.microsoftonline.de"]),
        CloudInstance(
            preferredNetwork: "login.microsoftonline.us", preferredCache: "login.microsoftonline.us",
            aliases: ["login.microsoftonline.us", "login.usgovcloudapi.net"]),
        CloudInstance(preferredNetwork: "login-us.microsoftonline.com", preferredCache: "login-us.microsoftonline.com", aliases: ["login-us.microsoftonline.com"]),
    ]

    /// The hosts IdentityCore validates without asking the service (`MSIDConstants.m`
    /// `MSIDTrustedAuthority...`): every alias above's cloud plus the sovereign clouds of France,
    /// Germany (Delos) and Singapore, which the answer above does not list.
    public static let trustedHosts: Set<String> = [
        "login.windows.net", "login.microsoftonline.us", "login.chinacloudapi.cn", "login.partner.microsoftonline.cn",
        "login.microsoftonline.de", "login.sovcloud-identity.fr", "login.sovcloud-identity.de", "login.sovcloud-identity.sg",
        "login.microsoftonline.com", "login-us.microsoftonline.com", "login.usgovcloudapi.net",
    ]

    /// The cloud `host` belongs to: its entry in the answer; a trusted host the answer does not
    /// list is a cloud of its own (the record `processImpl` adds "in case the authority we were
    /// looking for wasn't in the metadata"); nil for any other host, which the service answers
    /// with `invalid_instance`.
    public static func cloud(for host: String) -> CloudInstance? {
        let host = CacheKey.normalized(host)
        if let known = clouds.first(where: { $0.aliases.contains(host) }) { return known }
        guard trustedHosts.contains(host) else { return nil }
        return CloudInstance(preferredNetwork: host, preferredCache: host, aliases: [host])
    }

    /// The cloud of `host` as a validated lookup finds it, or a cloud of its own for a host
    /// outside every cloud (what IdentityCore records when validation is off).
    static func cloudOrOwn(for host: String) -> CloudInstance {
        cloud(for: host) ?? CloudInstance(preferredNetwork: host, preferredCache: host, aliases: [host])
    }
}
