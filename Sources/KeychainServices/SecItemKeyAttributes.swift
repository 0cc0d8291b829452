import Foundation
import SharedKeychain

// The attributes of key items (`kSecClassKey`) in SecItem dictionaries, read with Apple's types:
// bytes for the label and tag, numbers (or the numeric strings of Apple's constants) for the
// key class, type and sizes.
extension SecItemRequest {
    /// Reads one key attribute. Passwords have none of them: errSecParam. Start and end dates
    /// and tokens (the Secure Enclave) are errSecUnimplemented; the usage flags
    /// (`kSecAttrCanEncrypt`, ...) are checked and not kept.
    mutating func readKeyAttribute(_ name: String, _ value: Any) throws(SecItemFailure) {
        let display = Self.keyAttributeName(name)
        if let itemClass, itemClass != .key {
            throw .param("\(display) is a key attribute (kSecClassKey); passwords do not have it")
        }
        switch name {
        case kSecAttrKeyClass: key.keyClass = try Self.keyClass(value)
        case kSecAttrApplicationLabel: key.applicationLabel = try Self.bytes(value, key: display)
        case kSecAttrApplicationTag: key.applicationTag = try Self.bytes(value, key: display)
        case kSecAttrKeySizeInBits: key.keySizeInBits = try Self.keySize(value, key: display)
        case kSecAttrEffectiveKeySize: key.effectiveKeySize = try Self.keySize(value, key: display)
        case kSecAttrStartDate, kSecAttrEndDate, kSecAttrTokenID:
            throw .unimplemented("\(display) is not implemented: key items keep their class, label, tag, type and sizes")
        default:
            _ = try Self.bool(value, key: display)
        }
    }

    /// Fails when a key item is given attributes only passwords have.
    func checkKeyAttributes() throws(SecItemFailure) {
        guard account == nil, service == nil, internet.isEmpty, generic == nil, comment == nil, itemDescription == nil else {
            throw .param(
                "kSecAttrAccount, kSecAttrService, kSecAttrGeneric, kSecAttrComment, kSecAttrDescription and the internet attributes are password attributes; a key (kSecClassKey) is named by kSecAttrApplicationTag, kSecAttrApplicationLabel, kSecAttrKeyClass, kSecAttrKeyType and its sizes")
        }
    }

    /// `kSecAttrKeyClass`: `kSecAttrKeyClassPublic`, `...Private` or `...Symmetric` ("0", "1",
    /// "2"), or the number Apple returns.
    static func keyClass(_ value: Any) throws(SecItemFailure) -> String {
        let text = (value as? String) ?? integer(value).map { String($0) }
        guard let text, [kSecAttrKeyClassPublic, kSecAttrKeyClassPrivate, kSecAttrKeyClassSymmetric].contains(text as CFString) else {
            throw .param("kSecAttrKeyClass must be kSecAttrKeyClassPublic, kSecAttrKeyClassPrivate or kSecAttrKeyClassSymmetric, not \(value)")
        }
        return text
    }

    /// `kSecAttrKeyType`: a number (MSAL's `@(CSSM_ALGID_AES)`), or the numeric string of one of
    /// Apple's constants (`kSecAttrKeyTypeRSA` is "42").
    static func keyType(_ value: Any) throws(SecItemFailure) -> UInt32 {
        let number = (value as? String).flatMap { UInt32($0) } ?? integer(value).flatMap { UInt32(exactly: $0) }
        guard let number else {
            throw .param("kSecAttrKeyType must be one of the kSecAttrKeyType... constants or a number from 0 to 4294967295, not \(value)")
        }
        return number
    }

    /// `kSecAttrKeySizeInBits`, `kSecAttrEffectiveKeySize`: a number of bits, 0 or more.
    static func keySize(_ value: Any, key: String) throws(SecItemFailure) -> Int {
        let number = (value as? String).flatMap { Int($0) } ?? integer(value)
        guard let number, number >= 0, number <= Int(UInt32.max) else {
            throw .param("\(key) must be a number of bits from 0 to 4294967295, not \(value)")
        }
        return number
    }

    /// `kSecAttrApplicationTag`, `kSecAttrApplicationLabel`: bytes; a string is its UTF-8 bytes,
    /// as iOS keeps it.
    static func bytes(_ value: Any, key: String) throws(SecItemFailure) -> Data {
        if let bytes = value as? Data { return bytes }
        if let text = value as? String { return Data(text.utf8) }
        throw .param("\(key) must be Data (or a String, kept as its UTF-8 bytes), not \(Swift.type(of: value))")
    }

    static func keyAttributeName(_ name: String) -> String {
        let names = [
            kSecAttrKeyClass: "kSecAttrKeyClass", kSecAttrApplicationLabel: "kSecAttrApplicationLabel",
            kSecAttrApplicationTag: "kSecAttrApplicationTag", kSecAttrKeySizeInBits: "kSecAttrKeySizeInBits",
            kSecAttrEffectiveKeySize: "kSecAttrEffectiveKeySize", kSecAttrStartDate: "kSecAttrStartDate", kSecAttrEndDate: "kSecAttrEndDate",
            kSecAttrTokenID: "kSecAttrTokenID", kSecAttrIsPermanent: "kSecAttrIsPermanent", kSecAttrIsSensitive: "kSecAttrIsSensitive",
            kSecAttrIsExtractable: "kSecAttrIsExtractable", kSecAttrCanEncrypt: "kSecAttrCanEncrypt", kSecAttrCanDecrypt: "kSecAttrCanDecrypt",
            kSecAttrCanDerive: "kSecAttrCanDerive", kSecAttrCanSign: "kSecAttrCanSign", kSecAttrCanVerify: "kSecAttrCanVerify",
            kSecAttrCanWrap: "kSecAttrCanWrap", kSecAttrCanUnwrap: "kSecAttrCanUnwrap",
        ]
        return names[name as CFString] ?? name
    }
}

extension PrimaryKey {
    /// The class of the item the key names.
    var itemClass: ItemClass { key != nil ? .key : internet == nil ? .genericPassword : .internetPassword }
}

extension SecItemResult {
    /// A key's attributes as `kSecReturnAttributes` gives them: bytes as `Data`, the class,
    /// type and sizes as numbers, as iOS returns them.
    static func keyAttributes(_ key: KeyAttributes, into values: inout [String: Any]) {
        if let keyClass = Int(key.keyClass) { values[kSecAttrKeyClass] = NSNumber(value: keyClass) }
        values[kSecAttrApplicationLabel] = key.applicationLabel
        values[kSecAttrApplicationTag] = key.applicationTag
        values[kSecAttrKeyType] = NSNumber(value: key.keyType)
        values[kSecAttrKeySizeInBits] = NSNumber(value: key.keySizeInBits)
        values[kSecAttrEffectiveKeySize] = NSNumber(value: key.effectiveKeySize)
    }
}
