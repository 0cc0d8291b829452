import Foundation
import SharedKeychain

/// An AAD authority as MSAL accepts one (IdentityCore `validation/MSIDAADAuthority.m`,
/// `MSIDAuthority.m`, `MSIDAADTenant.m`): `https://<host>/<tenant>`, the tenant `common`,
/// `organizations`, `consumers`, a tenant ID or a domain name. The URL is normalized as
/// `normalizedAuthorityUrl` does it: the host and the first path component, nothing after.
public struct Authority: Sendable, Hashable, CustomStringConvertible {
    /// The host as given, lowercased: the environment the request names.
    public let host: String
    /// The tenant, trimmed and lowercased (`MSIDAADTenant rawTenant`).
    public let tenant: String
    /// The cloud instance discovery puts the host in.
    public let cloud: CloudInstance

    /// What kind of tenant the authority names (`MSIDAADTenantType`).
    public enum TenantType: String, Sendable, Hashable {
        /// `common`: work, school and personal accounts.
        case common
        /// `organizations`: work and school accounts.
        case organizations
        /// `consumers`: personal Microsoft accounts.
        case consumers
        /// A tenant ID or a domain name.
        case identifier
    }

    /// Parses an authority URL as `MSIDAuthorityFactory` and `MSIDAADAuthority` accept it.
    ///
    /// - Parameters:
    ///   - text: the authority URL, `https://<host>/<tenant>`.
    ///   - validated: refuse a host outside every cloud, as instance discovery does with
    ///     MSAL's default `validateAuthority`; false gives such a host a cloud of its own.
    /// - Throws: ``AuthorityError`` naming what is wrong.
    public init(parsing text: String, validated: Bool = true) throws(AuthorityError) {
        let trimmed = text.trimmingWhitespace
        guard !trimmed.isEmpty else { throw .empty }
        guard let url = URL(string: trimmed), let scheme = url.scheme, let rawHost = url.host(), !rawHost.isEmpty else {
            throw .notAURL(trimmed)
        }
        guard scheme.lowercased() == "https" else { throw .notHTTPS(trimmed) }
        let path = url.pathComponents.filter { $0 != "/" }
        let host = rawHost.lowercased() + (url.port.map { ":\($0)" } ?? "")
        guard let first = path.first, !first.trimmingWhitespace.isEmpty else { throw .noTenant(trimmed) }
        switch first.lowercased() {
        case "adfs": throw .unsupported(trimmed, kind: "ADFS")
        case "tfp": throw .unsupported(trimmed, kind: "B2C")
        default: break
        }
        let labels = host.split(separator: ".")
        if labels.count >= 3, labels[1] == "ciamlogin" { throw .unsupported(trimmed, kind: "CIAM") }
        if labels.contains(where: { $0 == "b2clogin" }) { throw .unsupported(trimmed, kind: "B2C") }
        try self.init(host: host, tenant: first, validated: validated)
    }

    /// The authority `https://<host>/<tenant>`.
    ///
    /// - Throws: ``AuthorityError`` for an empty host or tenant, or an unknown host when
    ///   `validated`.
    public init(host: String, tenant: String = "common", validated: Bool = true) throws(AuthorityError) {
        let host = CacheKey.normalized(host)
        let tenant = CacheKey.normalized(tenant)
        guard !host.isEmpty else { throw .empty }
        guard !tenant.isEmpty else { throw .noTenant("https://\(host)/") }
        guard !tenant.contains("/"), !tenant.contains(where: \.isWhitespace) else { throw .noTenant("https://\(host)/\(tenant)") }
        if validated {
            guard let cloud = InstanceDiscovery.cloud(for: host) else { throw .unknownInstance(host: host) }
            self.cloud = cloud
        } else {
            cloud = InstanceDiscovery.cloudOrOwn(for: host)
        }
        self.host = host
        self.tenant = tenant
    }

    /// The tenant's kind.
    public var tenantType: TenantType {
        TenantType(rawValue: tenant).flatMap { $0 == .identifier ? nil : $0 } ?? .identifier
    }

    /// The normalized URL, `https://<host>/<tenant>`.
    public var url: String { "https://\(host)/\(tenant)" }

    /// The environment items are written under (`cacheEnvironmentWithContext`: the discovery's
    /// `preferred_cache`).
    public var cacheEnvironment: String { cloud.preferredCache }

    /// The environments lookups match (`defaultCacheEnvironmentAliases`).
    public var cacheAliases: EnvironmentAliases { cloud.cacheAliases(for: host) }

    /// The authority of the same host for `tenantID` (`aadAuthorityWithEnvironment:rawTenant:`,
    /// as `resultAuthorityWithConfiguration` builds the result's authority from the ID token's realm).
    func withTenant(_ tenantID: String) -> String { "https://\(host)/\(CacheKey.normalized(tenantID))" }

    /// The URL.
    public var description: String { url }
}

/// Why an authority is refused, with the text as given.
public enum AuthorityError: Error, Sendable, Hashable, CustomStringConvertible, StatusReporting {
    /// No authority was given.
    case empty
    /// The text is no URL with a host.
    case notAURL(String)
    /// The scheme is not `https` (`MSIDAuthority isAuthorityFormatValid`: "authority must use HTTPS").
    case notHTTPS(String)
    /// The path names no tenant (`normalizedAuthorityUrl` needs a host and a path).
    case noTenant(String)
    /// An authority of a kind the emulator does not model (ADFS, B2C, CIAM); `MSIDAADAuthority`
    /// refuses these as AAD authorities too.
    case unsupported(String, kind: String)
    /// A host outside every cloud: instance discovery answers `invalid_instance`.
    case unknownInstance(host: String)

    /// What is wrong and what to give instead.
    public var message: String {
        switch self {
        case .empty:
            "the authority is empty; give one such as https://login.microsoftonline.com/common"
        case .notAURL(let text):
            "the authority '\(DisplayText(text))' is not a URL with a host; give one such as https://login.microsoftonline.com/common"
        case .notHTTPS(let text):
            "the authority '\(DisplayText(text))' must use HTTPS (as MSAL requires)"
        case .noTenant(let text):
            "the authority '\(DisplayText(text))' names no tenant; add /common, /organizations, /consumers, a tenant ID or a domain name"
        case .unsupported(let text, let kind):
            "the authority '\(DisplayText(text))' is a \(kind) authority, which the emulator does not model; give an AAD authority such as https://login.microsoftonline.com/common"
        case .unknownInstance(let host):
            "invalid_instance: '\(DisplayText(host))' is in no cloud instance discovery knows; give a host of \(InstanceDiscovery.clouds.map(\.preferredNetwork).joined(separator: ", "))"
        }
    }

    /// errSecParam: the input is refused before anything is read or written.
    public var status: KeychainStatus { .param }

    /// MSAL's `invalid_instance` for an unknown host.
    public var errorCode: String? {
        if case .unknownInstance = self { return "invalid_instance" }
        return nil
    }

    /// The message.
    public var description: String { message }
}
