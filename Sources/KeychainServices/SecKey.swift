import Foundation

// Key items (`kSecClassKey`): Apple's attribute names and values, so that code storing raw key
// bytes (MSAL's broker key) compiles and runs; and the SecKey functions, which answer
// errSecUnimplemented: the emulator stores keys, it does no cryptography with them.

// MARK: Key attributes

/// `kSecAttrKeyClass`: public, private or symmetric (part of a key's primary key).
nonisolated(unsafe) public let kSecAttrKeyClass: CFString = "kcls"
/// `kSecAttrKeyClassPublic`.
nonisolated(unsafe) public let kSecAttrKeyClassPublic: CFString = "0"
/// `kSecAttrKeyClassPrivate`.
nonisolated(unsafe) public let kSecAttrKeyClassPrivate: CFString = "1"
/// `kSecAttrKeyClassSymmetric`.
nonisolated(unsafe) public let kSecAttrKeyClassSymmetric: CFString = "2"
/// `kSecAttrApplicationLabel`: bytes (a public key's hash, for asymmetric keys).
nonisolated(unsafe) public let kSecAttrApplicationLabel: CFString = "klbl"
/// `kSecAttrApplicationTag`: the caller's name for the key, as bytes.
nonisolated(unsafe) public let kSecAttrApplicationTag: CFString = "atag"
/// `kSecAttrKeyType`: the algorithm. The same key as `kSecAttrType` ("type"), as on Apple's platforms.
nonisolated(unsafe) public let kSecAttrKeyType: CFString = "type"
/// `kSecAttrKeyTypeRSA`.
nonisolated(unsafe) public let kSecAttrKeyTypeRSA: CFString = "42"
/// `kSecAttrKeyTypeEC`.
nonisolated(unsafe) public let kSecAttrKeyTypeEC: CFString = "73"
/// `kSecAttrKeyTypeECSECPrimeRandom`.
nonisolated(unsafe) public let kSecAttrKeyTypeECSECPrimeRandom: CFString = "73"
/// `kSecAttrKeySizeInBits`.
nonisolated(unsafe) public let kSecAttrKeySizeInBits: CFString = "bsiz"
/// `kSecAttrEffectiveKeySize`.
nonisolated(unsafe) public let kSecAttrEffectiveKeySize: CFString = "esiz"
/// `kSecAttrStartDate`: not implemented (errSecUnimplemented).
nonisolated(unsafe) public let kSecAttrStartDate: CFString = "sdat"
/// `kSecAttrEndDate`: not implemented (errSecUnimplemented).
nonisolated(unsafe) public let kSecAttrEndDate: CFString = "edat"
/// `kSecAttrTokenID`: keys kept in a token (the Secure Enclave); not implemented.
nonisolated(unsafe) public let kSecAttrTokenID: CFString = "tkid"
/// `kSecAttrTokenIDSecureEnclave`.
nonisolated(unsafe) public let kSecAttrTokenIDSecureEnclave: CFString = "com.apple.setoken"
/// `kSecAttrIsPermanent`: a key-generation parameter; accepted, not kept.
nonisolated(unsafe) public let kSecAttrIsPermanent: CFString = "perm"
/// `kSecAttrIsSensitive`: accepted, not kept.
nonisolated(unsafe) public let kSecAttrIsSensitive: CFString = "sens"
/// `kSecAttrIsExtractable`: accepted, not kept.
nonisolated(unsafe) public let kSecAttrIsExtractable: CFString = "extr"
/// `kSecAttrCanEncrypt`: accepted, not kept (MSAL's broker key sets it).
nonisolated(unsafe) public let kSecAttrCanEncrypt: CFString = "encr"
/// `kSecAttrCanDecrypt`: accepted, not kept.
nonisolated(unsafe) public let kSecAttrCanDecrypt: CFString = "decr"
/// `kSecAttrCanDerive`: accepted, not kept.
nonisolated(unsafe) public let kSecAttrCanDerive: CFString = "drve"
/// `kSecAttrCanSign`: accepted, not kept.
nonisolated(unsafe) public let kSecAttrCanSign: CFString = "sign"
/// `kSecAttrCanVerify`: accepted, not kept.
nonisolated(unsafe) public let kSecAttrCanVerify: CFString = "vrfy"
/// `kSecAttrCanWrap`: accepted, not kept.
nonisolated(unsafe) public let kSecAttrCanWrap: CFString = "wrap"
/// `kSecAttrCanUnwrap`: accepted, not kept.
nonisolated(unsafe) public let kSecAttrCanUnwrap: CFString = "unwp"
/// `kSecPrivateKeyAttrs`: the private key's attributes in `SecKeyCreateRandomKey`'s parameters.
nonisolated(unsafe) public let kSecPrivateKeyAttrs: CFString = "private"
/// `kSecPublicKeyAttrs`: the public key's attributes in `SecKeyCreateRandomKey`'s parameters.
nonisolated(unsafe) public let kSecPublicKeyAttrs: CFString = "public"

// MARK: SecKey

/// `SecKey`: a key object. None is ever made here: every function that would make or use one
/// answers errSecUnimplemented. A key item's bytes are read with `kSecReturnData`.
public final class SecKey: Sendable {
    private init() {}
}

/// `SecKeyAlgorithm`: the name of a cryptographic algorithm.
// Unchecked: its one property is an immutable string (`NSString` here, where Foundation does not
// mark it `Sendable`).
public struct SecKeyAlgorithm: RawRepresentable, Hashable, @unchecked Sendable {
    /// Apple's name of the algorithm.
    public let rawValue: CFString

    /// An algorithm by Apple's name.
    /// - Parameter rawValue: Apple's name of the algorithm.
    public init(rawValue: CFString) { self.rawValue = rawValue }

    /// `.ecdsaSignatureMessageX962SHA256`.
    public static let ecdsaSignatureMessageX962SHA256 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-X962:SHA256")
    /// `.rsaSignatureMessagePKCS1v15SHA256`.
    public static let rsaSignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PKCS1v15:SHA256")
    /// `.rsaEncryptionOAEPSHA256`.
    public static let rsaEncryptionOAEPSHA256 = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA256")
    /// `.eciesEncryptionCofactorVariableIVX963SHA256AESGCM`.
    public static let eciesEncryptionCofactorVariableIVX963SHA256AESGCM = SecKeyAlgorithm(
        rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV")
}

/// The error every SecKey function reports: errSecUnimplemented, with what to do instead.
private func unimplemented(_ function: String, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) {
    let message = "\(function) is not implemented: the emulator stores key items (SecItemAdd with kSecClassKey and kSecValueData) but does no cryptography"
    error?.pointee = Unmanaged.passRetained(CFError(domain: "NSOSStatusErrorDomain", code: Int(errSecUnimplemented), description: message))
}

/// Not implemented: nil, with `error` set to errSecUnimplemented. Store a key's bytes with
/// `SecItemAdd` (`kSecClassKey`, `kSecValueData`) instead.
/// - Parameters:
///   - parameters: the key's type, size and attributes.
///   - error: set to an errSecUnimplemented error.
public func SecKeyCreateRandomKey(_ parameters: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey? {
    unimplemented("SecKeyCreateRandomKey", error)
    return nil
}

/// Not implemented: nil, with `error` set to errSecUnimplemented.
/// - Parameters:
///   - keyData: the key's external representation.
///   - attributes: the key's type and class.
///   - error: set to an errSecUnimplemented error.
public func SecKeyCreateWithData(_ keyData: CFData, _ attributes: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey? {
    unimplemented("SecKeyCreateWithData", error)
    return nil
}

/// Not implemented: no ``SecKey`` exists, so there is no public key to copy.
/// - Parameter key: a private key.
public func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey? { nil }

/// Not implemented: nil, with `error` set to errSecUnimplemented.
/// - Parameters:
///   - key: the key.
///   - error: set to an errSecUnimplemented error.
public func SecKeyCopyExternalRepresentation(_ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    unimplemented("SecKeyCopyExternalRepresentation", error)
    return nil
}

/// Not implemented: nil, with `error` set to errSecUnimplemented.
/// - Parameters:
///   - key: the private key.
///   - algorithm: the signature algorithm.
///   - dataToSign: the data.
///   - error: set to an errSecUnimplemented error.
public func SecKeyCreateSignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    unimplemented("SecKeyCreateSignature", error)
    return nil
}

/// Not implemented: false, with `error` set to errSecUnimplemented.
/// - Parameters:
///   - key: the public key.
///   - algorithm: the signature algorithm.
///   - signedData: the data signed.
///   - signature: the signature.
///   - error: set to an errSecUnimplemented error.
public func SecKeyVerifySignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData, _ signature: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> Bool {
    unimplemented("SecKeyVerifySignature", error)
    return false
}

/// Not implemented: nil, with `error` set to errSecUnimplemented.
/// - Parameters:
///   - key: the public key.
///   - algorithm: the encryption algorithm.
///   - plaintext: the data to encrypt.
///   - error: set to an errSecUnimplemented error.
public func SecKeyCreateEncryptedData(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    unimplemented("SecKeyCreateEncryptedData", error)
    return nil
}

/// Not implemented: nil, with `error` set to errSecUnimplemented.
/// - Parameters:
///   - key: the private key.
///   - algorithm: the encryption algorithm.
///   - ciphertext: the data to decrypt.
///   - error: set to an errSecUnimplemented error.
public func SecKeyCreateDecryptedData(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    unimplemented("SecKeyCreateDecryptedData", error)
    return nil
}
