import Foundation
import KeychainServices
import Testing

// Issue 31, point 3: every name the guide's "Apple's names" page marks defined compiles and has
// Apple's value (Security's SecItemConstants.c and SecBase.h). The list is the page's, in its order.

@Suite("SecItem: Apple's names")
struct AppleNamesTests {
    @Test func everyDefinedNameHasApplesValue() {
        let constants: [(name: String, value: CFString, apple: String)] = [
            ("kSecClass", kSecClass, "class"),
            ("kSecClassGenericPassword", kSecClassGenericPassword, "genp"),
            ("kSecClassInternetPassword", kSecClassInternetPassword, "inet"),
            ("kSecClassCertificate", kSecClassCertificate, "cert"),
            ("kSecClassKey", kSecClassKey, "keys"),
            ("kSecClassIdentity", kSecClassIdentity, "idnt"),
            ("kSecAttrAccessible", kSecAttrAccessible, "pdmn"),
            ("kSecAttrAccessControl", kSecAttrAccessControl, "accc"),
            ("kSecAttrAccessGroup", kSecAttrAccessGroup, "agrp"),
            ("kSecAttrSynchronizable", kSecAttrSynchronizable, "sync"),
            ("kSecAttrSynchronizableAny", kSecAttrSynchronizableAny, "syna"),
            ("kSecAttrCreationDate", kSecAttrCreationDate, "cdat"),
            ("kSecAttrModificationDate", kSecAttrModificationDate, "mdat"),
            ("kSecAttrDescription", kSecAttrDescription, "desc"),
            ("kSecAttrComment", kSecAttrComment, "icmt"),
            ("kSecAttrCreator", kSecAttrCreator, "crtr"),
            ("kSecAttrType", kSecAttrType, "type"),
            ("kSecAttrLabel", kSecAttrLabel, "labl"),
            ("kSecAttrIsInvisible", kSecAttrIsInvisible, "invi"),
            ("kSecAttrIsNegative", kSecAttrIsNegative, "nega"),
            ("kSecAttrAccount", kSecAttrAccount, "acct"),
            ("kSecAttrService", kSecAttrService, "svce"),
            ("kSecAttrGeneric", kSecAttrGeneric, "gena"),
            ("kSecAttrSecurityDomain", kSecAttrSecurityDomain, "sdmn"),
            ("kSecAttrServer", kSecAttrServer, "srvr"),
            ("kSecAttrProtocol", kSecAttrProtocol, "ptcl"),
            ("kSecAttrAuthenticationType", kSecAttrAuthenticationType, "atyp"),
            ("kSecAttrPort", kSecAttrPort, "port"),
            ("kSecAttrPath", kSecAttrPath, "path"),
            ("kSecAttrSubject", kSecAttrSubject, "subj"),
            ("kSecAttrIssuer", kSecAttrIssuer, "issr"),
            ("kSecAttrSerialNumber", kSecAttrSerialNumber, "slnr"),
            ("kSecAttrSubjectKeyID", kSecAttrSubjectKeyID, "skid"),
            ("kSecAttrPublicKeyHash", kSecAttrPublicKeyHash, "pkhh"),
            ("kSecAttrCertificateType", kSecAttrCertificateType, "ctyp"),
            ("kSecAttrCertificateEncoding", kSecAttrCertificateEncoding, "cenc"),
            ("kSecAttrSyncViewHint", kSecAttrSyncViewHint, "vwht"),
            ("kSecAttrAccessibleWhenUnlocked", kSecAttrAccessibleWhenUnlocked, "ak"),
            ("kSecAttrAccessibleAfterFirstUnlock", kSecAttrAccessibleAfterFirstUnlock, "ck"),
            ("kSecAttrAccessibleAlways", kSecAttrAccessibleAlways, "dk"),
            ("kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly", kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, "akpu"),
            ("kSecAttrAccessibleWhenUnlockedThisDeviceOnly", kSecAttrAccessibleWhenUnlockedThisDeviceOnly, "aku"),
            ("kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly", kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, "cku"),
            ("kSecAttrAccessibleAlwaysThisDeviceOnly", kSecAttrAccessibleAlwaysThisDeviceOnly, "dku"),
            ("kSecAttrProtocolFTP", kSecAttrProtocolFTP, "ftp "),
            ("kSecAttrProtocolFTPAccount", kSecAttrProtocolFTPAccount, "ftpa"),
            ("kSecAttrProtocolHTTP", kSecAttrProtocolHTTP, "http"),
            ("kSecAttrProtocolIRC", kSecAttrProtocolIRC, "irc "),
            ("kSecAttrProtocolNNTP", kSecAttrProtocolNNTP, "nntp"),
            ("kSecAttrProtocolPOP3", kSecAttrProtocolPOP3, "pop3"),
            ("kSecAttrProtocolSMTP", kSecAttrProtocolSMTP, "smtp"),
            ("kSecAttrProtocolSOCKS", kSecAttrProtocolSOCKS, "sox "),
            ("kSecAttrProtocolIMAP", kSecAttrProtocolIMAP, "imap"),
            ("kSecAttrProtocolLDAP", kSecAttrProtocolLDAP, "ldap"),
            ("kSecAttrProtocolAppleTalk", kSecAttrProtocolAppleTalk, "atlk"),
            ("kSecAttrProtocolAFP", kSecAttrProtocolAFP, "afp "),
            ("kSecAttrProtocolTelnet", kSecAttrProtocolTelnet, "teln"),
            ("kSecAttrProtocolSSH", kSecAttrProtocolSSH, "ssh "),
            ("kSecAttrProtocolFTPS", kSecAttrProtocolFTPS, "ftps"),
            ("kSecAttrProtocolHTTPS", kSecAttrProtocolHTTPS, "htps"),
            ("kSecAttrProtocolHTTPProxy", kSecAttrProtocolHTTPProxy, "htpx"),
            ("kSecAttrProtocolHTTPSProxy", kSecAttrProtocolHTTPSProxy, "htsx"),
            ("kSecAttrProtocolFTPProxy", kSecAttrProtocolFTPProxy, "ftpx"),
            ("kSecAttrProtocolSMB", kSecAttrProtocolSMB, "smb "),
            ("kSecAttrProtocolRTSP", kSecAttrProtocolRTSP, "rtsp"),
            ("kSecAttrProtocolRTSPProxy", kSecAttrProtocolRTSPProxy, "rtsx"),
            ("kSecAttrProtocolDAAP", kSecAttrProtocolDAAP, "daap"),
            ("kSecAttrProtocolEPPC", kSecAttrProtocolEPPC, "eppc"),
            ("kSecAttrProtocolIPP", kSecAttrProtocolIPP, "ipp "),
            ("kSecAttrProtocolNNTPS", kSecAttrProtocolNNTPS, "ntps"),
            ("kSecAttrProtocolLDAPS", kSecAttrProtocolLDAPS, "ldps"),
            ("kSecAttrProtocolTelnetS", kSecAttrProtocolTelnetS, "tels"),
            ("kSecAttrProtocolIMAPS", kSecAttrProtocolIMAPS, "imps"),
            ("kSecAttrProtocolIRCS", kSecAttrProtocolIRCS, "ircs"),
            ("kSecAttrProtocolPOP3S", kSecAttrProtocolPOP3S, "pops"),
            ("kSecAttrAuthenticationTypeNTLM", kSecAttrAuthenticationTypeNTLM, "ntlm"),
            ("kSecAttrAuthenticationTypeMSN", kSecAttrAuthenticationTypeMSN, "msna"),
            ("kSecAttrAuthenticationTypeDPA", kSecAttrAuthenticationTypeDPA, "dpaa"),
            ("kSecAttrAuthenticationTypeRPA", kSecAttrAuthenticationTypeRPA, "rpaa"),
            ("kSecAttrAuthenticationTypeHTTPBasic", kSecAttrAuthenticationTypeHTTPBasic, "http"),
            ("kSecAttrAuthenticationTypeHTTPDigest", kSecAttrAuthenticationTypeHTTPDigest, "httd"),
            ("kSecAttrAuthenticationTypeHTMLForm", kSecAttrAuthenticationTypeHTMLForm, "form"),
            ("kSecAttrAuthenticationTypeDefault", kSecAttrAuthenticationTypeDefault, "dflt"),
            ("kSecMatchPolicy", kSecMatchPolicy, "m_Policy"),
            ("kSecMatchItemList", kSecMatchItemList, "m_ItemList"),
            ("kSecMatchSearchList", kSecMatchSearchList, "m_SearchList"),
            ("kSecMatchIssuers", kSecMatchIssuers, "m_Issuers"),
            ("kSecMatchEmailAddressIfPresent", kSecMatchEmailAddressIfPresent, "m_EmailAddressIfPresent"),
            ("kSecMatchSubjectContains", kSecMatchSubjectContains, "m_SubjectContains"),
            ("kSecMatchTrustedOnly", kSecMatchTrustedOnly, "m_TrustedOnly"),
            ("kSecMatchValidOnDate", kSecMatchValidOnDate, "m_ValidOnDate"),
            ("kSecMatchCaseInsensitive", kSecMatchCaseInsensitive, "m_CaseInsensitive"),
            ("kSecMatchLimit", kSecMatchLimit, "m_Limit"),
            ("kSecMatchLimitOne", kSecMatchLimitOne, "m_LimitOne"),
            ("kSecMatchLimitAll", kSecMatchLimitAll, "m_LimitAll"),
            ("kSecReturnData", kSecReturnData, "r_Data"),
            ("kSecReturnAttributes", kSecReturnAttributes, "r_Attributes"),
            ("kSecReturnRef", kSecReturnRef, "r_Ref"),
            ("kSecReturnPersistentRef", kSecReturnPersistentRef, "r_PersistentRef"),
            ("kSecValueData", kSecValueData, "v_Data"),
            ("kSecValueRef", kSecValueRef, "v_Ref"),
            ("kSecValuePersistentRef", kSecValuePersistentRef, "v_PersistentRef"),
            ("kSecUseOperationPrompt", kSecUseOperationPrompt, "u_OpPrompt"),
            ("kSecUseNoAuthenticationUI", kSecUseNoAuthenticationUI, "u_NoAuthUI"),
            ("kSecUseAuthenticationUI", kSecUseAuthenticationUI, "u_AuthUI"),
            ("kSecUseAuthenticationContext", kSecUseAuthenticationContext, "u_AuthCtx"),
            ("kSecUseDataProtectionKeychain", kSecUseDataProtectionKeychain, "nleg"),
            ("kSecUseAuthenticationUIAllow", kSecUseAuthenticationUIAllow, "u_AuthUIA"),
            ("kSecUseAuthenticationUIFail", kSecUseAuthenticationUIFail, "u_AuthUIF"),
            ("kSecUseAuthenticationUISkip", kSecUseAuthenticationUISkip, "u_AuthUIS"),
            ("kSecAttrAccessGroupToken", kSecAttrAccessGroupToken, "com.apple.token"),
        ]
        for constant in constants {
            #expect(constant.value as String == constant.apple, "\(constant.name)")
        }
        let statuses: [(name: String, value: OSStatus, apple: OSStatus)] = [
            ("errSecSuccess", errSecSuccess, 0),
            ("errSecUnimplemented", errSecUnimplemented, -4),
            ("errSecDiskFull", errSecDiskFull, -34),
            ("errSecIO", errSecIO, -36),
            ("errSecOpWr", errSecOpWr, -49),
            ("errSecParam", errSecParam, -50),
            ("errSecWrPerm", errSecWrPerm, -61),
            ("errSecAllocate", errSecAllocate, -108),
            ("errSecUserCanceled", errSecUserCanceled, -128),
            ("errSecBadReq", errSecBadReq, -909),
            ("errSecInternalComponent", errSecInternalComponent, -2070),
            ("errSecCoreFoundationUnknown", errSecCoreFoundationUnknown, -4960),
            ("errSecMissingEntitlement", errSecMissingEntitlement, -34018),
            ("errSecRestrictedAPI", errSecRestrictedAPI, -34020),
            ("errSecNotAvailable", errSecNotAvailable, -25291),
            ("errSecReadOnly", errSecReadOnly, -25292),
            ("errSecAuthFailed", errSecAuthFailed, -25293),
            ("errSecNoSuchKeychain", errSecNoSuchKeychain, -25294),
            ("errSecInvalidKeychain", errSecInvalidKeychain, -25295),
            ("errSecDuplicateKeychain", errSecDuplicateKeychain, -25296),
            ("errSecDuplicateCallback", errSecDuplicateCallback, -25297),
            ("errSecInvalidCallback", errSecInvalidCallback, -25298),
            ("errSecDuplicateItem", errSecDuplicateItem, -25299),
            ("errSecItemNotFound", errSecItemNotFound, -25300),
            ("errSecBufferTooSmall", errSecBufferTooSmall, -25301),
            ("errSecDataTooLarge", errSecDataTooLarge, -25302),
            ("errSecNoSuchAttr", errSecNoSuchAttr, -25303),
            ("errSecInvalidItemRef", errSecInvalidItemRef, -25304),
            ("errSecInvalidSearchRef", errSecInvalidSearchRef, -25305),
            ("errSecNoSuchClass", errSecNoSuchClass, -25306),
            ("errSecNoDefaultKeychain", errSecNoDefaultKeychain, -25307),
            ("errSecInteractionNotAllowed", errSecInteractionNotAllowed, -25308),
            ("errSecReadOnlyAttr", errSecReadOnlyAttr, -25309),
            ("errSecWrongSecVersion", errSecWrongSecVersion, -25310),
            ("errSecKeySizeNotAllowed", errSecKeySizeNotAllowed, -25311),
            ("errSecNoStorageModule", errSecNoStorageModule, -25312),
            ("errSecNoCertificateModule", errSecNoCertificateModule, -25313),
            ("errSecNoPolicyModule", errSecNoPolicyModule, -25314),
            ("errSecInteractionRequired", errSecInteractionRequired, -25315),
            ("errSecDataNotAvailable", errSecDataNotAvailable, -25316),
            ("errSecDataNotModifiable", errSecDataNotModifiable, -25317),
            ("errSecCreateChainFailed", errSecCreateChainFailed, -25318),
            ("errSecDecode", errSecDecode, -26275),
        ]
        for status in statuses {
            #expect(status.value == status.apple, "\(status.name)")
        }
        let bundleKeys: [(name: String, value: CFString, apple: String)] = [
            ("kCFBundleIdentifierKey", kCFBundleIdentifierKey, "CFBundleIdentifier"),
            ("kCFBundleNameKey", kCFBundleNameKey, "CFBundleName"),
            ("kCFBundleVersionKey", kCFBundleVersionKey, "CFBundleVersion"),
            ("kCFBundleExecutableKey", kCFBundleExecutableKey, "CFBundleExecutable"),
            ("kCFBundleInfoDictionaryVersionKey", kCFBundleInfoDictionaryVersionKey, "CFBundleInfoDictionaryVersion"),
            ("kCFBundleDevelopmentRegionKey", kCFBundleDevelopmentRegionKey, "CFBundleDevelopmentRegion"),
            ("kCFBundleLocalizationsKey", kCFBundleLocalizationsKey, "CFBundleLocalizations"),
        ]
        for key in bundleKeys {
            #expect(key.value as String == key.apple, "\(key.name)")
        }
    }

    /// The Core Foundation types and functions the page marks defined, each used once.
    @Test func everyDefinedCoreFoundationNameCompiles() {
        let string: CFString = "s"
        let mutableString: CFMutableString = NSMutableString(string: "m")
        let data: CFData = Data([1]) as CFData
        let mutableData: CFMutableData = NSMutableData(data: Data([1, 2]))
        let array: CFArray = [string] as CFArray
        let mutableArray: CFMutableArray = NSMutableArray(array: [data])
        let dictionary: CFDictionary = ["k": string] as CFDictionary
        let mutableDictionary: CFMutableDictionary = NSMutableDictionary(dictionary: ["k": data])
        let boolean: CFBoolean = kCFBooleanTrue
        let number: CFNumber = NSNumber(value: 7)
        let date: CFDate = NSDate(timeIntervalSince1970: 0)
        let index: CFIndex = CFDataGetLength(data)
        let flags: CFOptionFlags = 0
        let status: OSStatus = noErr
        let allocator: CFAllocator? = kCFAllocatorDefault
        let objects: [CFTypeRef] = [string, data, array, dictionary, boolean, number, date]
        let identifiers: [CFTypeID] = objects.map { CFGetTypeID($0) }
        #expect(identifiers == [
            CFStringGetTypeID(), CFDataGetTypeID(), CFArrayGetTypeID(), CFDictionaryGetTypeID(), CFBooleanGetTypeID(),
            CFNumberGetTypeID(), CFDateGetTypeID(),
        ])
        #expect(Set(identifiers).count == identifiers.count)
        #expect(CFGetTypeID(mutableString) == CFStringGetTypeID() && CFGetTypeID(mutableData) == CFDataGetTypeID())
        #expect(CFGetTypeID(mutableArray) == CFArrayGetTypeID() && CFGetTypeID(mutableDictionary) == CFDictionaryGetTypeID())
        #expect(CFBooleanGetValue(boolean) && !CFBooleanGetValue(kCFBooleanFalse))
        #expect(index == 1 && flags == 0 && status == errSecSuccess && allocator == nil)
        var unmanaged: Unmanaged<CFError>?
        #expect(SecAccessControlCreateWithFlags(kCFAllocatorDefault, "not a protection" as CFString, [], &unmanaged) == nil)
        let error: CFError? = unmanaged?.takeRetainedValue()
        #expect(CFErrorGetDomain(error) as String? == "NSOSStatusErrorDomain")
        #expect(CFErrorGetCode(error) == CFIndex(errSecParam))
        #expect((CFErrorCopyUserInfo(error) as? [String: Any])?["NSDescription"] != nil)
    }
}
