// `import Security`, as iOS keychain code writes it, brings in Apple's SecItem API on Linux:
// SecItemAdd, SecItemCopyMatching, SecItemUpdate, SecItemDelete, the kSec* keys and the
// errSec* codes, all from KeychainServices. Nothing else lives here.
@_exported import KeychainServices
