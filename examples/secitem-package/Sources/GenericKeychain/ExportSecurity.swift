// The one line added to the vendored code: iOS gets SecItem from the SDK, here it comes from
// SharedKeychain's Security product.
@_exported import Security
