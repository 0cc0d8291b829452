import Foundation

// Apple's Keychain Services names on Linux, with Apple's values, so that iOS keychain code
// compiles unchanged. The Core Foundation types they are declared with live in
// CoreFoundationTypes.swift.
//
// The kSec... constants are `CFString`, a class (`NSString`), as on Apple's platforms, so code
// puts them into `[String: AnyObject]` and passes them as `AnyObject` without a cast.
// swift-corelibs-foundation declares NSString's Sendable conformance unavailable, so each
// constant is `nonisolated(unsafe)`: an immutable NSString is never mutated after it is made.

/// `noErr`, the classic name for success.
public let noErr: OSStatus = 0

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
public let errSecBadReq: OSStatus = -909
public let errSecInternalComponent: OSStatus = -2070

// MARK: Item classes

nonisolated(unsafe) public let kSecClass: CFString = "class"
nonisolated(unsafe) public let kSecClassGenericPassword: CFString = "genp"
nonisolated(unsafe) public let kSecClassInternetPassword: CFString = "inet"
nonisolated(unsafe) public let kSecClassCertificate: CFString = "cert"
nonisolated(unsafe) public let kSecClassKey: CFString = "keys"
nonisolated(unsafe) public let kSecClassIdentity: CFString = "idnt"

// MARK: Attributes

nonisolated(unsafe) public let kSecAttrAccessGroup: CFString = "agrp"
nonisolated(unsafe) public let kSecAttrAccessible: CFString = "pdmn"
nonisolated(unsafe) public let kSecAttrAccount: CFString = "acct"
nonisolated(unsafe) public let kSecAttrService: CFString = "svce"
nonisolated(unsafe) public let kSecAttrGeneric: CFString = "gena"
nonisolated(unsafe) public let kSecAttrLabel: CFString = "labl"
nonisolated(unsafe) public let kSecAttrComment: CFString = "icmt"
nonisolated(unsafe) public let kSecAttrDescription: CFString = "desc"
nonisolated(unsafe) public let kSecAttrType: CFString = "type"
nonisolated(unsafe) public let kSecAttrCreator: CFString = "crtr"
nonisolated(unsafe) public let kSecAttrCreationDate: CFString = "cdat"
nonisolated(unsafe) public let kSecAttrModificationDate: CFString = "mdat"
nonisolated(unsafe) public let kSecAttrSynchronizable: CFString = "sync"
/// In a query: match synchronizable and local items alike.
nonisolated(unsafe) public let kSecAttrSynchronizableAny: CFString = "syna"
nonisolated(unsafe) public let kSecAttrIsInvisible: CFString = "invi"
nonisolated(unsafe) public let kSecAttrIsNegative: CFString = "nega"
nonisolated(unsafe) public let kSecAttrAccessControl: CFString = "accc"
// Internet-password attributes.
nonisolated(unsafe) public let kSecAttrServer: CFString = "srvr"
nonisolated(unsafe) public let kSecAttrProtocol: CFString = "ptcl"
nonisolated(unsafe) public let kSecAttrPort: CFString = "port"
nonisolated(unsafe) public let kSecAttrPath: CFString = "path"
nonisolated(unsafe) public let kSecAttrAuthenticationType: CFString = "atyp"
nonisolated(unsafe) public let kSecAttrSecurityDomain: CFString = "sdmn"

// MARK: kSecAttrProtocol values (internet passwords)

nonisolated(unsafe) public let kSecAttrProtocolFTP: CFString = "ftp "
nonisolated(unsafe) public let kSecAttrProtocolFTPAccount: CFString = "ftpa"
nonisolated(unsafe) public let kSecAttrProtocolHTTP: CFString = "http"
nonisolated(unsafe) public let kSecAttrProtocolIRC: CFString = "irc "
nonisolated(unsafe) public let kSecAttrProtocolNNTP: CFString = "nntp"
nonisolated(unsafe) public let kSecAttrProtocolPOP3: CFString = "pop3"
nonisolated(unsafe) public let kSecAttrProtocolSMTP: CFString = "smtp"
nonisolated(unsafe) public let kSecAttrProtocolSOCKS: CFString = "sox "
nonisolated(unsafe) public let kSecAttrProtocolIMAP: CFString = "imap"
nonisolated(unsafe) public let kSecAttrProtocolLDAP: CFString = "ldap"
nonisolated(unsafe) public let kSecAttrProtocolAppleTalk: CFString = "atlk"
nonisolated(unsafe) public let kSecAttrProtocolAFP: CFString = "afp "
nonisolated(unsafe) public let kSecAttrProtocolTelnet: CFString = "teln"
nonisolated(unsafe) public let kSecAttrProtocolSSH: CFString = "ssh "
nonisolated(unsafe) public let kSecAttrProtocolFTPS: CFString = "ftps"
nonisolated(unsafe) public let kSecAttrProtocolHTTPS: CFString = "htps"
nonisolated(unsafe) public let kSecAttrProtocolHTTPProxy: CFString = "htpx"
nonisolated(unsafe) public let kSecAttrProtocolHTTPSProxy: CFString = "htsx"
nonisolated(unsafe) public let kSecAttrProtocolFTPProxy: CFString = "ftpx"
nonisolated(unsafe) public let kSecAttrProtocolSMB: CFString = "smb "
nonisolated(unsafe) public let kSecAttrProtocolRTSP: CFString = "rtsp"
nonisolated(unsafe) public let kSecAttrProtocolRTSPProxy: CFString = "rtsx"
nonisolated(unsafe) public let kSecAttrProtocolDAAP: CFString = "daap"
nonisolated(unsafe) public let kSecAttrProtocolEPPC: CFString = "eppc"
nonisolated(unsafe) public let kSecAttrProtocolIPP: CFString = "ipp "
nonisolated(unsafe) public let kSecAttrProtocolNNTPS: CFString = "ntps"
nonisolated(unsafe) public let kSecAttrProtocolLDAPS: CFString = "ldps"
nonisolated(unsafe) public let kSecAttrProtocolTelnetS: CFString = "tels"
nonisolated(unsafe) public let kSecAttrProtocolIMAPS: CFString = "imps"
nonisolated(unsafe) public let kSecAttrProtocolIRCS: CFString = "ircs"
nonisolated(unsafe) public let kSecAttrProtocolPOP3S: CFString = "pops"

// MARK: kSecAttrAuthenticationType values (internet passwords)

nonisolated(unsafe) public let kSecAttrAuthenticationTypeNTLM: CFString = "ntlm"
nonisolated(unsafe) public let kSecAttrAuthenticationTypeMSN: CFString = "msna"
nonisolated(unsafe) public let kSecAttrAuthenticationTypeDPA: CFString = "dpaa"
nonisolated(unsafe) public let kSecAttrAuthenticationTypeRPA: CFString = "rpaa"
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTTPBasic: CFString = "http"
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTTPDigest: CFString = "httd"
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTMLForm: CFString = "form"
nonisolated(unsafe) public let kSecAttrAuthenticationTypeDefault: CFString = "dflt"

// MARK: kSecAttrAccessible values

nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
nonisolated(unsafe) public let kSecAttrAccessibleAlways: CFString = "dk"
nonisolated(unsafe) public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
nonisolated(unsafe) public let kSecAttrAccessibleAlwaysThisDeviceOnly: CFString = "dku"

// MARK: Search and return

nonisolated(unsafe) public let kSecMatchLimit: CFString = "m_Limit"
nonisolated(unsafe) public let kSecMatchLimitOne: CFString = "m_LimitOne"
nonisolated(unsafe) public let kSecMatchLimitAll: CFString = "m_LimitAll"
nonisolated(unsafe) public let kSecMatchCaseInsensitive: CFString = "m_CaseInsensitive"
nonisolated(unsafe) public let kSecReturnData: CFString = "r_Data"
nonisolated(unsafe) public let kSecReturnAttributes: CFString = "r_Attributes"
nonisolated(unsafe) public let kSecReturnRef: CFString = "r_Ref"
nonisolated(unsafe) public let kSecReturnPersistentRef: CFString = "r_PersistentRef"
nonisolated(unsafe) public let kSecValueData: CFString = "v_Data"
nonisolated(unsafe) public let kSecValueRef: CFString = "v_Ref"
nonisolated(unsafe) public let kSecValuePersistentRef: CFString = "v_PersistentRef"

// MARK: Use

/// Accepted and without effect: every item here behaves as in the data-protection keychain.
nonisolated(unsafe) public let kSecUseDataProtectionKeychain: CFString = "nleg"
/// How an item that asks for user presence may ask: ``kSecUseAuthenticationUIAllow`` (the
/// default: the emulated device decides, see `device authentication`),
/// ``kSecUseAuthenticationUIFail`` (errSecInteractionNotAllowed instead of asking) or
/// ``kSecUseAuthenticationUISkip`` (such items are left out of the results).
nonisolated(unsafe) public let kSecUseAuthenticationUI: CFString = "u_AuthUI"
nonisolated(unsafe) public let kSecUseAuthenticationUIAllow: CFString = "u_AuthUIA"
nonisolated(unsafe) public let kSecUseAuthenticationUIFail: CFString = "u_AuthUIF"
nonisolated(unsafe) public let kSecUseAuthenticationUISkip: CFString = "u_AuthUIS"
nonisolated(unsafe) public let kSecUseAuthenticationContext: CFString = "u_AuthCtx"
nonisolated(unsafe) public let kSecUseOperationPrompt: CFString = "u_OpPrompt"
/// The older spelling of ``kSecUseAuthenticationUIFail``: `true` fails rather than asks.
nonisolated(unsafe) public let kSecUseNoAuthenticationUI: CFString = "u_NoAuthUI"
