/// Who issued an account, as the cache's `authority_type` field spells it.
public enum AuthorityType: String, Sendable, Hashable, Codable, CaseIterable {
    /// Azure AD v2 and Microsoft accounts through the v2 endpoint: what MSAL writes.
    case msSTS = "MSSTS"
    /// Azure AD v1 (ADAL).
    case aad = "AAD"
    /// A Microsoft account through the v1 endpoint.
    case msa = "MSA"
    case adfs = "ADFS"

    /// `kSecAttrType` of the account item: 1000 + {AAD 1, MSA 2, MSSTS 3, ADFS 4}.
    var itemType: Int {
        switch self {
        case .aad: 1001
        case .msa: 1002
        case .msSTS: 1003
        case .adfs: 1004
        }
    }

    init?(itemType: Int) {
        guard let match = Self.allCases.first(where: { $0.itemType == itemType }) else { return nil }
        self = match
    }
}
