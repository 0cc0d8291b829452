import Foundation

// Apple's Keychain Services names on Linux, with Apple's values, so that iOS keychain code
// compiles unchanged. Core Foundation types are the Swift types they bridge to on Apple's
// platforms: `query as CFDictionary`, `kSecClass as String`, `var result: CFTypeRef?` and
// `result as? Data` read the same here as there.

/// `CFDictionary`: a query or attribute dictionary. `NSDictionary`, as on Apple's platforms, so
/// that every dictionary real code builds converts with `as CFDictionary`: `[String: Any]`,
/// `[String: AnyObject]`, `[String: AnyHashable]`, `[String?: AnyObject]`, `NSMutableDictionary`.
public typealias CFDictionary = NSDictionary
/// `CFMutableDictionary`.
public typealias CFMutableDictionary = NSMutableDictionary
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
/// `CFIndex`.
public typealias CFIndex = Int
/// `CFOptionFlags`.
public typealias CFOptionFlags = UInt

/// `noErr`, the classic name for success.
public let noErr: OSStatus = 0

/// `CFAllocator`: there is one allocator here, so code passes ``kCFAllocatorDefault`` (nil on
/// Apple's platforms too) and nothing reads it.
public final class CFAllocator: Sendable {
    private init() {}
}

/// `kCFAllocatorDefault`: NULL, as on Apple's platforms.
public let kCFAllocatorDefault: CFAllocator! = nil

/// `CFError`: a domain, a code and a user-info dictionary; thrown as an `Error`, as Apple's
/// bridges to `NSError`. `SecAccessControlCreateWithFlags` reports failures with one.
public final class CFError: Error, @unchecked Sendable, CustomStringConvertible {
    // @unchecked: immutable after init; the dictionary holds only strings.
    let domain: String
    let code: Int
    let userInfo: [String: Any]

    init(domain: String, code: Int, description: String) {
        self.domain = domain
        self.code = code
        self.userInfo = ["NSDescription": description]
    }

    public var description: String { "\(domain) \(code): \(userInfo["NSDescription"] ?? "")" }
}

/// The domain of `error` (`NSOSStatusErrorDomain` for keychain failures).
public func CFErrorGetDomain(_ error: CFError!) -> CFString! { error?.domain }
/// The code of `error` (an `OSStatus` for keychain failures).
public func CFErrorGetCode(_ error: CFError!) -> CFIndex { error?.code ?? 0 }
/// The user info of `error` (`NSDescription`: what went wrong).
public func CFErrorCopyUserInfo(_ error: CFError!) -> CFDictionary! { (error?.userInfo ?? [:]) as NSDictionary }

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
public let errSecBadReq: OSStatus = -909
public let errSecInternalComponent: OSStatus = -2070

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
// Internet-password attributes.
public let kSecAttrServer: CFString = "srvr"
public let kSecAttrProtocol: CFString = "ptcl"
public let kSecAttrPort: CFString = "port"
public let kSecAttrPath: CFString = "path"
public let kSecAttrAuthenticationType: CFString = "atyp"
public let kSecAttrSecurityDomain: CFString = "sdmn"

// MARK: kSecAttrProtocol values (internet passwords)

public let kSecAttrProtocolFTP: CFString = "ftp "
public let kSecAttrProtocolFTPAccount: CFString = "ftpa"
public let kSecAttrProtocolHTTP: CFString = "http"
public let kSecAttrProtocolIRC: CFString = "irc "
public let kSecAttrProtocolNNTP: CFString = "nntp"
public let kSecAttrProtocolPOP3: CFString = "pop3"
public let kSecAttrProtocolSMTP: CFString = "smtp"
public let kSecAttrProtocolSOCKS: CFString = "sox "
public let kSecAttrProtocolIMAP: CFString = "imap"
public let kSecAttrProtocolLDAP: CFString = "ldap"
public let kSecAttrProtocolAppleTalk: CFString = "atlk"
public let kSecAttrProtocolAFP: CFString = "afp "
public let kSecAttrProtocolTelnet: CFString = "teln"
public let kSecAttrProtocolSSH: CFString = "ssh "
public let kSecAttrProtocolFTPS: CFString = "ftps"
public let kSecAttrProtocolHTTPS: CFString = "htps"
public let kSecAttrProtocolHTTPProxy: CFString = "htpx"
public let kSecAttrProtocolHTTPSProxy: CFString = "htsx"
public let kSecAttrProtocolFTPProxy: CFString = "ftpx"
public let kSecAttrProtocolSMB: CFString = "smb "
public let kSecAttrProtocolRTSP: CFString = "rtsp"
public let kSecAttrProtocolRTSPProxy: CFString = "rtsx"
public let kSecAttrProtocolDAAP: CFString = "daap"
public let kSecAttrProtocolEPPC: CFString = "eppc"
public let kSecAttrProtocolIPP: CFString = "ipp "
public let kSecAttrProtocolNNTPS: CFString = "ntps"
public let kSecAttrProtocolLDAPS: CFString = "ldps"
public let kSecAttrProtocolTelnetS: CFString = "tels"
public let kSecAttrProtocolIMAPS: CFString = "imps"
public let kSecAttrProtocolIRCS: CFString = "ircs"
public let kSecAttrProtocolPOP3S: CFString = "pops"

// MARK: kSecAttrAuthenticationType values (internet passwords)

public let kSecAttrAuthenticationTypeNTLM: CFString = "ntlm"
public let kSecAttrAuthenticationTypeMSN: CFString = "msna"
public let kSecAttrAuthenticationTypeDPA: CFString = "dpaa"
public let kSecAttrAuthenticationTypeRPA: CFString = "rpaa"
public let kSecAttrAuthenticationTypeHTTPBasic: CFString = "http"
public let kSecAttrAuthenticationTypeHTTPDigest: CFString = "httd"
public let kSecAttrAuthenticationTypeHTMLForm: CFString = "form"
public let kSecAttrAuthenticationTypeDefault: CFString = "dflt"

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
/// How an item that asks for user presence may ask: ``kSecUseAuthenticationUIAllow`` (the
/// default: the emulated device decides, see `device authentication`),
/// ``kSecUseAuthenticationUIFail`` (errSecInteractionNotAllowed instead of asking) or
/// ``kSecUseAuthenticationUISkip`` (such items are left out of the results).
public let kSecUseAuthenticationUI: CFString = "u_AuthUI"
public let kSecUseAuthenticationUIAllow: CFString = "u_AuthUIA"
public let kSecUseAuthenticationUIFail: CFString = "u_AuthUIF"
public let kSecUseAuthenticationUISkip: CFString = "u_AuthUIS"
public let kSecUseAuthenticationContext: CFString = "u_AuthCtx"
public let kSecUseOperationPrompt: CFString = "u_OpPrompt"
/// The older spelling of ``kSecUseAuthenticationUIFail``: `true` fails rather than asks.
public let kSecUseNoAuthenticationUI: CFString = "u_NoAuthUI"
