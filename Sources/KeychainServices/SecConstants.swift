import Foundation

// Apple's Keychain Services names on Linux, with Apple's values, so that iOS keychain code
// compiles unchanged. Core Foundation types are the Swift types they bridge to on Apple's
// platforms: `query as CFDictionary`, `kSecClass as String`, `var result: CFTypeRef?` and
// `result as? Data` read the same here as there.

/// `CFDictionary`: a query or attribute dictionary.
public typealias CFDictionary = [String: Any]
/// `CFTypeRef`: a result (`Data`, `[String: Any]`, or an array of them).
public typealias CFTypeRef = AnyObject
/// `CFString`: every `kSec...` key and value.
public typealias CFString = String
/// `CFData`.
public typealias CFData = Data
/// `CFArray`.
public typealias CFArray = [Any]
/// `CFBoolean`, as in `kCFBooleanTrue`.
public typealias CFBoolean = NSNumber
/// `CFNumber`.
public typealias CFNumber = NSNumber
/// `OSStatus`: what every SecItem function returns.
public typealias OSStatus = Int32

/// `kCFBooleanTrue`; implicitly unwrapped as Apple's, so `kCFBooleanTrue!` compiles too.
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)
/// `kCFBooleanFalse`.
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)

// MARK: Result codes

public let errSecSuccess: OSStatus = 0
/// The class or key is not implemented here (keys, certificates, identities, internet passwords).
public let errSecUnimplemented: OSStatus = -4
public let errSecIO: OSStatus = -36
public let errSecParam: OSStatus = -50
public let errSecAllocate: OSStatus = -108
public let errSecUserCanceled: OSStatus = -128
public let errSecNotAvailable: OSStatus = -25291
public let errSecAuthFailed: OSStatus = -25293
public let errSecDuplicateItem: OSStatus = -25299
public let errSecItemNotFound: OSStatus = -25300
public let errSecInteractionNotAllowed: OSStatus = -25308
public let errSecDecode: OSStatus = -26275
public let errSecMissingEntitlement: OSStatus = -34018

// MARK: Item classes

public let kSecClass: CFString = "class"
public let kSecClassGenericPassword: CFString = "genp"
public let kSecClassInternetPassword: CFString = "inet"
public let kSecClassCertificate: CFString = "cert"
public let kSecClassKey: CFString = "keys"
public let kSecClassIdentity: CFString = "idnt"

// MARK: Attributes

public let kSecAttrAccessGroup: CFString = "agrp"
public let kSecAttrAccessible: CFString = "pdmn"
public let kSecAttrAccount: CFString = "acct"
public let kSecAttrService: CFString = "svce"
public let kSecAttrGeneric: CFString = "gena"
public let kSecAttrLabel: CFString = "labl"
public let kSecAttrComment: CFString = "icmt"
public let kSecAttrDescription: CFString = "desc"
public let kSecAttrType: CFString = "type"
public let kSecAttrCreator: CFString = "crtr"
public let kSecAttrCreationDate: CFString = "cdat"
public let kSecAttrModificationDate: CFString = "mdat"
public let kSecAttrSynchronizable: CFString = "sync"
/// In a query: match synchronizable and local items alike.
public let kSecAttrSynchronizableAny: CFString = "syna"
public let kSecAttrIsInvisible: CFString = "invi"
public let kSecAttrIsNegative: CFString = "nega"
public let kSecAttrAccessControl: CFString = "accc"
// Internet-password attributes: recognised, and answered with errSecUnimplemented.
public let kSecAttrServer: CFString = "srvr"
public let kSecAttrProtocol: CFString = "ptcl"
public let kSecAttrPort: CFString = "port"
public let kSecAttrPath: CFString = "path"
public let kSecAttrAuthenticationType: CFString = "atyp"
public let kSecAttrSecurityDomain: CFString = "sdmn"

// MARK: kSecAttrAccessible values

public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
public let kSecAttrAccessibleAlways: CFString = "dk"
public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"
public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
public let kSecAttrAccessibleAlwaysThisDeviceOnly: CFString = "dku"

// MARK: Search and return

public let kSecMatchLimit: CFString = "m_Limit"
public let kSecMatchLimitOne: CFString = "m_LimitOne"
public let kSecMatchLimitAll: CFString = "m_LimitAll"
public let kSecMatchCaseInsensitive: CFString = "m_CaseInsensitive"
public let kSecReturnData: CFString = "r_Data"
public let kSecReturnAttributes: CFString = "r_Attributes"
public let kSecReturnRef: CFString = "r_Ref"
public let kSecReturnPersistentRef: CFString = "r_PersistentRef"
public let kSecValueData: CFString = "v_Data"
public let kSecValueRef: CFString = "v_Ref"
public let kSecValuePersistentRef: CFString = "v_PersistentRef"

// MARK: Use

/// Accepted and without effect: every item here behaves as in the data-protection keychain.
public let kSecUseDataProtectionKeychain: CFString = "nleg"
/// Accepted and without effect: no UI is ever shown.
public let kSecUseAuthenticationUI: CFString = "u_AuthUI"
public let kSecUseAuthenticationUIAllow: CFString = "u_AuthUIA"
public let kSecUseAuthenticationUIFail: CFString = "u_AuthUIF"
public let kSecUseAuthenticationUISkip: CFString = "u_AuthUIS"
public let kSecUseAuthenticationContext: CFString = "u_AuthCtx"
public let kSecUseOperationPrompt: CFString = "u_OpPrompt"
