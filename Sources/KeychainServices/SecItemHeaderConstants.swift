import Foundation

// The rest of SecItem.h's names that code may write, with Apple's values
// (Security's SecItemConstants.c), so that it compiles. None of them reaches a password item:
// a certificate or identity query ends at its class (errSecItemNotFound, as on a device that
// holds none), and beside a password class each key is errSecParam, as an unknown key is.
// The guide's "Apple's names" page lists every name of the header and what is done with it.

// MARK: Certificate attributes (read-only on Apple's platforms)

nonisolated(unsafe) public let kSecAttrSubject: CFString = "subj"
nonisolated(unsafe) public let kSecAttrIssuer: CFString = "issr"
nonisolated(unsafe) public let kSecAttrSerialNumber: CFString = "slnr"
nonisolated(unsafe) public let kSecAttrSubjectKeyID: CFString = "skid"
nonisolated(unsafe) public let kSecAttrPublicKeyHash: CFString = "pkhh"
nonisolated(unsafe) public let kSecAttrCertificateType: CFString = "ctyp"
nonisolated(unsafe) public let kSecAttrCertificateEncoding: CFString = "cenc"

// MARK: Search keys for certificates and identities

nonisolated(unsafe) public let kSecMatchPolicy: CFString = "m_Policy"
nonisolated(unsafe) public let kSecMatchItemList: CFString = "m_ItemList"
nonisolated(unsafe) public let kSecMatchSearchList: CFString = "m_SearchList"
nonisolated(unsafe) public let kSecMatchIssuers: CFString = "m_Issuers"
nonisolated(unsafe) public let kSecMatchEmailAddressIfPresent: CFString = "m_EmailAddressIfPresent"
nonisolated(unsafe) public let kSecMatchSubjectContains: CFString = "m_SubjectContains"
nonisolated(unsafe) public let kSecMatchTrustedOnly: CFString = "m_TrustedOnly"
nonisolated(unsafe) public let kSecMatchValidOnDate: CFString = "m_ValidOnDate"

// MARK: Tokens

/// The access group of items an external token provides.
nonisolated(unsafe) public let kSecAttrAccessGroupToken: CFString = "com.apple.token"

// MARK: Synchronization

/// `kSecAttrSyncViewHint`: which sync view an iCloud Keychain item belongs to; nothing syncs here.
nonisolated(unsafe) public let kSecAttrSyncViewHint: CFString = "vwht"
