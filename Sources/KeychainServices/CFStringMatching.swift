import Foundation

// The reader compares the keys and values of a SecItem dictionary, which arrive as `String`s,
// with the kSec... constants, which are `CFString`s (`NSString`). These let it write
// `case kSecClass:`, `name == kSecClassKey` and `entries[kSecClass]` as if the constants were
// strings. Internal: code outside this module compares with `as String`, as on Apple's platforms.

/// `case kSecAttrAccount:` in a `switch` over a `String`.
func ~= (constant: CFString, value: String) -> Bool {
    (constant as String) == value
}

/// A string compared with a kSec... constant.
func == (value: String, constant: CFString) -> Bool {
    value == (constant as String)
}

extension Dictionary where Key == String {
    /// The entry named by a kSec... constant.
    subscript(constant: CFString) -> Value? {
        get { self[constant as String] }
        set { self[constant as String] = newValue }
    }
}
