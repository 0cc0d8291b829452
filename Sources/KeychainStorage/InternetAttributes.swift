import Foundation

/// The class of an item: `kSecClassGenericPassword`, `kSecClassInternetPassword` or
/// `kSecClassKey` (a key's bytes, found by its ``KeyAttributes``).
public enum ItemClass: String, Sendable, Hashable, Codable, CaseIterable {
    case genericPassword = "generic"
    case internetPassword = "internet"
    case key = "key"
}

/// The attributes an internet password (`kSecClassInternetPassword`) has beside the account,
/// all part of its primary key. An attribute not given is Apple's default: empty, or port 0.
public struct InternetAttributes: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `kSecAttrSecurityDomain`.
    public var securityDomain: String
    /// `kSecAttrServer`.
    public var server: String
    /// `kSecAttrProtocol`: Apple's four-character value (`htps` for `kSecAttrProtocolHTTPS`).
    public var `protocol`: String
    /// `kSecAttrAuthenticationType`: Apple's four-character value (`dflt`, `form`, ...).
    public var authenticationType: String
    /// `kSecAttrPort`.
    public var port: Int
    /// `kSecAttrPath`.
    public var path: String

    public init(
        securityDomain: String = "", server: String = "", protocol: String = "", authenticationType: String = "", port: Int = 0,
        path: String = ""
    ) {
        self.securityDomain = securityDomain
        self.server = server
        self.protocol = `protocol`
        self.authenticationType = authenticationType
        self.port = port
        self.path = path
    }

    private enum CodingKeys: String, CodingKey {
        case securityDomain, server, `protocol`, authenticationType, port, path
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        securityDomain = try container.decodeIfPresent(String.self, forKey: .securityDomain) ?? ""
        server = try container.decodeIfPresent(String.self, forKey: .server) ?? ""
        self.protocol = try container.decodeIfPresent(String.self, forKey: .protocol) ?? ""
        authenticationType = try container.decodeIfPresent(String.self, forKey: .authenticationType) ?? ""
        port = try container.decodeIfPresent(Int.self, forKey: .port) ?? 0
        path = try container.decodeIfPresent(String.self, forKey: .path) ?? ""
    }

    /// `server 'example.com', protocol 'htps', port 443`: the attributes that are set.
    public var description: String {
        var parts: [String] = ["server '\(DisplayText(server))'"]
        if !`protocol`.isEmpty { parts.append("protocol '\(DisplayText(`protocol`))'") }
        if port != 0 { parts.append("port \(port)") }
        if !path.isEmpty { parts.append("path '\(DisplayText(path))'") }
        if !securityDomain.isEmpty { parts.append("security domain '\(DisplayText(securityDomain))'") }
        if !authenticationType.isEmpty { parts.append("authentication type '\(DisplayText(authenticationType))'") }
        return parts.joined(separator: ", ")
    }
}

/// Internet-password attributes to match (in a query) or to set (in an update): nil is any
/// value, or unchanged.
public struct InternetFields: Sendable, Hashable {
    public var securityDomain: String?
    public var server: String?
    public var `protocol`: String?
    public var authenticationType: String?
    public var port: Int?
    public var path: String?

    public init(
        securityDomain: String? = nil, server: String? = nil, protocol: String? = nil, authenticationType: String? = nil,
        port: Int? = nil, path: String? = nil
    ) {
        self.securityDomain = securityDomain
        self.server = server
        self.protocol = `protocol`
        self.authenticationType = authenticationType
        self.port = port
        self.path = path
    }

    /// Every attribute of `attributes` named: what matches exactly those.
    public init(_ attributes: InternetAttributes) {
        self.init(
            securityDomain: attributes.securityDomain, server: attributes.server, protocol: attributes.protocol,
            authenticationType: attributes.authenticationType, port: attributes.port, path: attributes.path)
    }

    /// True when no attribute is named.
    public var isEmpty: Bool { self == InternetFields() }

    /// Whether `attributes` (nil: a generic password, which has none) hold every value named.
    public func matches(_ attributes: InternetAttributes?) -> Bool {
        guard !isEmpty else { return true }
        guard let attributes else { return false }
        return (securityDomain == nil || securityDomain == attributes.securityDomain)
            && (server == nil || server == attributes.server)
            && (`protocol` == nil || `protocol` == attributes.protocol)
            && (authenticationType == nil || authenticationType == attributes.authenticationType)
            && (port == nil || port == attributes.port)
            && (path == nil || path == attributes.path)
    }

    /// `attributes` with the named values set.
    public func applied(to attributes: InternetAttributes) -> InternetAttributes {
        var changed = attributes
        if let securityDomain { changed.securityDomain = securityDomain }
        if let server { changed.server = server }
        if let value = `protocol` { changed.protocol = value }
        if let authenticationType { changed.authenticationType = authenticationType }
        if let port { changed.port = port }
        if let path { changed.path = path }
        return changed
    }

    /// The attributes of a new item: the named values, Apple's defaults for the rest.
    public var attributes: InternetAttributes { applied(to: InternetAttributes()) }
}
