import Foundation

// SecBase.h's keychain result codes beyond those SecItem calls here return, with Apple's
// values, so that code which compares with them compiles. The guide's "Apple's names" page
// lists which codes are defined and which (the CSSM and macOS file-keychain codes) are not.

public let errSecDiskFull: OSStatus = -34
public let errSecOpWr: OSStatus = -49
public let errSecWrPerm: OSStatus = -61
public let errSecCoreFoundationUnknown: OSStatus = -4960
public let errSecRestrictedAPI: OSStatus = -34020
public let errSecReadOnly: OSStatus = -25292
public let errSecNoSuchKeychain: OSStatus = -25294
public let errSecInvalidKeychain: OSStatus = -25295
public let errSecDuplicateKeychain: OSStatus = -25296
public let errSecDuplicateCallback: OSStatus = -25297
public let errSecInvalidCallback: OSStatus = -25298
public let errSecBufferTooSmall: OSStatus = -25301
public let errSecDataTooLarge: OSStatus = -25302
public let errSecNoSuchAttr: OSStatus = -25303
public let errSecInvalidItemRef: OSStatus = -25304
public let errSecInvalidSearchRef: OSStatus = -25305
public let errSecNoSuchClass: OSStatus = -25306
public let errSecNoDefaultKeychain: OSStatus = -25307
public let errSecReadOnlyAttr: OSStatus = -25309
public let errSecWrongSecVersion: OSStatus = -25310
public let errSecKeySizeNotAllowed: OSStatus = -25311
public let errSecNoStorageModule: OSStatus = -25312
public let errSecNoCertificateModule: OSStatus = -25313
public let errSecNoPolicyModule: OSStatus = -25314
public let errSecInteractionRequired: OSStatus = -25315
public let errSecDataNotAvailable: OSStatus = -25316
public let errSecDataNotModifiable: OSStatus = -25317
public let errSecCreateChainFailed: OSStatus = -25318
