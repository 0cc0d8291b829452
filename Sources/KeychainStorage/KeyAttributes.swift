import Foundation

/// The attributes a key item (`kSecClassKey`) has, every one part of its primary key with the
/// access group and the synchronizable flag (Apple: "kSecAttrAccessGroup, kSecAttrKeyClass,
/// kSecAttrKeyType, kSecAttrApplicationLabel, kSecAttrApplicationTag, kSecAttrKeySizeInBits,
/// kSecAttrEffectiveKeySize"). A key item has no account and no service (both empty). An
/// attribute not given is Apple's default: empty bytes, or 0.
public struct KeyAttributes: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `kSecAttrKeyClass`: Apple's value, `0` public, `1` private, `2` symmetric.
    public var keyClass: String
    /// `kSecAttrApplicationLabel`.
    public var applicationLabel: Data
    /// `kSecAttrApplicationTag`: the caller's name for the key (MSAL: `com.microsoft.adBrokerKey\0`).
    public var applicationTag: Data
    /// `kSecAttrKeyType`: the CSSM algorithm number (`CSSM_ALGID_AES` is 2147483649).
    public var keyType: UInt32
    /// `kSecAttrKeySizeInBits`.
    public var keySizeInBits: Int
    /// `kSecAttrEffectiveKeySize`.
    public var effectiveKeySize: Int

    /// `kSecAttrKeyClassSymmetric`.
    public static let symmetricKeyClass = "2"
    /// `CSSM_ALGID_AES`, the value MSAL gives `kSecAttrKeyType`.
    public static let aesKeyType: UInt32 = 0x8000_0001

    public init(
        keyClass: String = "", applicationLabel: Data = Data(), applicationTag: Data = Data(), keyType: UInt32 = 0,
        keySizeInBits: Int = 0, effectiveKeySize: Int = 0
    ) {
        self.keyClass = keyClass
        self.applicationLabel = applicationLabel
        self.applicationTag = applicationTag
        self.keyType = keyType
        self.keySizeInBits = keySizeInBits
        self.effectiveKeySize = effectiveKeySize
    }

    /// `key tag 'com.microsoft.adBrokerKey\0', class 2, type 2147483649, 256 bits`.
    public var description: String {
        var parts = ["key tag '\(DisplayText(String(decoding: applicationTag, as: UTF8.self)))'"]
        if !keyClass.isEmpty { parts.append("class \(DisplayText(keyClass))") }
        parts.append("type \(keyType)")
        if keySizeInBits != 0 { parts.append("\(keySizeInBits) bits") }
        if effectiveKeySize != keySizeInBits { parts.append("effective \(effectiveKeySize) bits") }
        if !applicationLabel.isEmpty { parts.append("label \(applicationLabel.count) bytes") }
        return parts.joined(separator: ", ")
    }
}

/// Key-item attributes to match in a query: nil is any value. Any attribute named excludes
/// passwords, which have none.
public struct KeyFields: Sendable, Hashable {
    public var keyClass: String?
    public var applicationLabel: Data?
    public var applicationTag: Data?
    public var keyType: UInt32?
    public var keySizeInBits: Int?
    public var effectiveKeySize: Int?

    public init(
        keyClass: String? = nil, applicationLabel: Data? = nil, applicationTag: Data? = nil, keyType: UInt32? = nil,
        keySizeInBits: Int? = nil, effectiveKeySize: Int? = nil
    ) {
        self.keyClass = keyClass
        self.applicationLabel = applicationLabel
        self.applicationTag = applicationTag
        self.keyType = keyType
        self.keySizeInBits = keySizeInBits
        self.effectiveKeySize = effectiveKeySize
    }

    /// True when no attribute is named.
    public var isEmpty: Bool { self == KeyFields() }

    /// Whether `attributes` (nil: a password, which has none) hold every value named.
    public func matches(_ attributes: KeyAttributes?) -> Bool {
        guard !isEmpty else { return true }
        guard let attributes else { return false }
        return (keyClass == nil || keyClass == attributes.keyClass)
            && (applicationLabel == nil || applicationLabel == attributes.applicationLabel)
            && (applicationTag == nil || applicationTag == attributes.applicationTag)
            && (keyType == nil || keyType == attributes.keyType)
            && (keySizeInBits == nil || keySizeInBits == attributes.keySizeInBits)
            && (effectiveKeySize == nil || effectiveKeySize == attributes.effectiveKeySize)
    }
}

extension KeyFields {
    /// Every attribute of `attributes`, to match exactly (the key a persistent reference names).
    /// - Parameter attributes: the key's attributes.
    public init(_ attributes: KeyAttributes) {
        self.init(
            keyClass: attributes.keyClass, applicationLabel: attributes.applicationLabel, applicationTag: attributes.applicationTag,
            keyType: attributes.keyType, keySizeInBits: attributes.keySizeInBits, effectiveKeySize: attributes.effectiveKeySize)
    }

    /// A new key's attributes: those not named are Apple's defaults, empty or 0.
    public var attributes: KeyAttributes {
        KeyAttributes(
            keyClass: keyClass ?? "", applicationLabel: applicationLabel ?? Data(), applicationTag: applicationTag ?? Data(),
            keyType: keyType ?? 0, keySizeInBits: keySizeInBits ?? 0, effectiveKeySize: effectiveKeySize ?? 0)
    }
}
