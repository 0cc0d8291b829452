/// UUID-formatted identifiers derived from names, the same in every process and on every
/// machine (Swift's `Hasher` is seeded per process, so it cannot be used).
enum StableUUID {
    /// FNV-1a, 128 bits, shaped as an RFC 9562 version 8 ("custom") UUID, lowercased.
    static func from(_ name: String) -> String {
        var hash: UInt128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d
        let prime: UInt128 = 0x0000_0000_0100_0000_0000_0000_0000_013b
        for byte in name.utf8 {
            hash ^= UInt128(byte)
            hash = hash &* prime
        }
        // Version 8 in bits 48-51 (from the top), variant 0b10 in bits 64-65.
        hash = (hash & ~(UInt128(0xf) << 76)) | (UInt128(0x8) << 76)
        hash = (hash & ~(UInt128(0x3) << 62)) | (UInt128(0x2) << 62)
        let hex = String(hash, radix: 16)
        let digits = Array(String(repeating: "0", count: 32 - hex.count) + hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(digits[$0]) }.joined(separator: "-")
    }

    /// Whether `text` is a UUID in its usual 8-4-4-4-12 hex form.
    static func isUUID(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        return parts.map(\.count) == [8, 4, 4, 4, 12]
            && parts.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }
}
