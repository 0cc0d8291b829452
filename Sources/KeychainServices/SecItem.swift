import Foundation
import Logging
import SharedKeychain

// Apple's four SecItem functions for generic and internet passwords and keys, with Apple's semantics: the keychain
// core (`Keychain`) decides, these functions read Apple's dictionaries and shape Apple's
// results. Every call acts as the app of the current ``SecItemContext``.

/// Adds an item. With `kSecReturnData`, `kSecReturnAttributes` or `kSecReturnPersistentRef`
/// the item comes back through `result` as `SecItemCopyMatching` would return it.
///
/// - Returns: `errSecSuccess`, `errSecDuplicateItem` when the primary key is taken (account,
///   service and group for a password; class, label, tag, type, sizes and group for a key),
///   `errSecMissingEntitlement` for a group the app may not use, `errSecParam` for a bad
///   dictionary, `errSecUnimplemented` for certificates and identities.
@discardableResult
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    SecItemCall.run("SecItemAdd") { keychain throws(SecItemFailure) in
        let request = try SecItemRequest(attributes, for: .add)
        let added: KeychainItem
        do throws(KeychainError) { added = try keychain.add(request.newItem) } catch { throw SecItemFailure(error) }
        if let result, !request.returns.isEmpty {
            result.pointee = SecItemResult.value(of: [added], returns: request.returns, many: false)
        }
    }
}

/// Finds items. The first match by default; with `kSecMatchLimit` (`kSecMatchLimitAll`, or a
/// number) an array. Each match is `Data` (`kSecReturnData` alone), the persistent reference
/// (`kSecReturnPersistentRef` alone), or a `[String: Any]` of attributes (dates as `Date`)
/// holding `kSecValueData` and `kSecValuePersistentRef` when those are asked for too.
///
/// An item whose access control asks the user (`kSecAttrAccessControl` with user presence,
/// biometry or the passcode) is asked for when its data is returned: the device's answer
/// (`device authentication`) decides; `kSecUseAuthenticationUIFail` fails instead of asking,
/// and `kSecUseAuthenticationUISkip` leaves such items out.
///
/// - Returns: `errSecSuccess`, or `errSecItemNotFound` with `result` untouched;
///   `errSecAuthFailed`, `errSecUserCanceled` or `errSecInteractionNotAllowed` for an item
///   whose access control was not satisfied.
@discardableResult
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    SecItemCall.run("SecItemCopyMatching") { keychain throws(SecItemFailure) in
        let request = try SecItemRequest(query, for: .search)
        let found: [KeychainItem]
        do throws(KeychainError) {
            found = try keychain.copyMatching(
                request.query, limit: request.limit, returningData: request.returns.contains(.data), authenticationUI: request.authenticationUI)
        } catch { throw SecItemFailure(error) }
        if let result, !request.returns.isEmpty {
            result.pointee = SecItemResult.value(of: found, returns: request.returns, many: request.limit != .one)
        }
    }
}

/// Changes every item `query` matches to `attributesToUpdate` (attributes and
/// `kSecValueData`).
///
/// Updating an item whose access control asks the user asks for it, as on iOS (Apple's
/// KeychainTouchID sample prompts on update, not on delete).
///
/// `kSecAttrAccessGroup` in `attributesToUpdate` moves the items to that group
/// (`Keychain.move(_:toGroup:with:authenticationUI:)`): the app must be entitled to it
/// (`errSecMissingEntitlement` otherwise, and nothing moves).
///
/// - Returns: `errSecSuccess`, `errSecItemNotFound`, or `errSecDuplicateItem` when the change
///   would give two items one primary key (nothing is changed then); `errSecMissingEntitlement`;
///   the authentication statuses of `SecItemCopyMatching`.
@discardableResult
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    SecItemCall.run("SecItemUpdate") { keychain throws(SecItemFailure) in
        let request = try SecItemRequest(query, for: .search)
        let update = try SecItemRequest(attributesToUpdate, for: .update, queryClass: request.itemClass)
        if let itemClass = update.itemClass, itemClass != request.itemClass {
            throw .param("the attributes to update name another kSecClass than the query; an item keeps its class")
        }
        if let itemClass = request.itemClass { try update.checkAttributes(of: itemClass) }
        guard update.key.isEmpty else {
            throw .unimplemented("changing a key's class, label, tag, type or sizes is not implemented; delete the key and add it again")
        }
        let change = update.change
        guard !change.isEmpty || update.group != nil else {
            throw .param("the attributes to update are empty: name at least one attribute or kSecValueData")
        }
        do throws(KeychainError) {
            if let group = update.group {
                try keychain.move(request.query, toGroup: group, with: change, authenticationUI: request.authenticationUI)
            } else {
                try keychain.update(request.query, with: change, authenticationUI: request.authenticationUI)
            }
        } catch { throw SecItemFailure(error) }
    }
}

/// Deletes EVERY item `query` matches, in every group the app may use when it names none.
///
/// - Returns: `errSecSuccess`, or `errSecItemNotFound` when nothing matched.
@discardableResult
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    SecItemCall.run("SecItemDelete") { keychain throws(SecItemFailure) in
        let request = try SecItemRequest(query, for: .delete)
        do throws(KeychainError) { try keychain.delete(request.query) } catch { throw SecItemFailure(error) }
    }
}

/// Apple's message for a status (`"The specified item could not be found in the keychain."`),
/// or `"OSStatus N"` for one it does not know. `reserved` is ignored, as on Apple's platforms.
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    switch status {
    case errSecSuccess: "No error."
    case errSecUnimplemented: "Function or operation not implemented."
    case errSecIO: "I/O error."
    case errSecParam: "One or more parameters passed to a function were not valid."
    case errSecAllocate: "Failed to allocate memory."
    case errSecUserCanceled: "User canceled the operation."
    case errSecNotAvailable: "No keychain is available. You may need to restart your computer."
    case errSecAuthFailed: "The user name or passphrase you entered is not correct."
    case errSecDuplicateItem: "The specified item already exists in the keychain."
    case errSecItemNotFound: "The specified item could not be found in the keychain."
    case errSecInteractionNotAllowed: "User interaction is not allowed."
    case errSecDecode: "Unable to decode the provided data."
    case errSecMissingEntitlement: "A required entitlement isn't present."
    case KeychainStatus.versionConflict.rawValue: "The item changed since it was read (SharedKeychain's errSKVersionConflict)."
    default: "OSStatus \(status)" as CFString
    }
}

/// The shared path of every SecItem function: the context, the call, the status.
enum SecItemCall {
    static let logger = Logger(label: "KeychainServices")

    static func run(_ function: String, _ body: (Keychain) throws(SecItemFailure) -> Void) -> OSStatus {
        let keychain: Keychain
        switch SecItemContext.resolve() {
        case .success(let context): keychain = context.keychain
        case .failure(let problem): return problem.status.rawValue
        }
        do {
            try body(keychain)
            return errSecSuccess
        } catch {
            // The caller sees only the status; the reason goes to the log (never secret data).
            logger.debug(
                "\(function) failed", metadata: ["status": "\(error.status)", "app": "\(keychain.app.bundleID)", "reason": "\(error.message)"])
            return error.status
        }
    }
}

/// What SecItem results look like: Apple's shapes, as `AnyObject` for `CFTypeRef`.
enum SecItemResult {
    static func value(of items: [KeychainItem], returns: SecItemRequest.Returns, many: Bool) -> CFTypeRef? {
        // Typed arrays, so that `result as? [Data]` and `as? [[String: Any]]` cast.
        func shaped<T>(_ values: [T]) -> CFTypeRef? {
            many ? values as AnyObject : values.first.map { $0 as AnyObject }
        }
        // A password has no object for kSecReturnRef: it adds nothing beside other returns.
        var returns = returns
        if returns != .reference { returns.remove(.reference) }
        switch returns {
        case .data: return shaped(items.map(\.data))
        case .persistentRef, .reference: return shaped(items.map(PersistentReference.data(for:)))
        default: return shaped(items.map { dictionary($0, returns) })
        }
    }

    /// An item as `kSecReturnAttributes` gives it, plus its data and reference when asked for.
    static func dictionary(_ item: KeychainItem, _ returns: SecItemRequest.Returns) -> [String: Any] {
        var values: [String: Any] = [:]
        if returns.contains(.attributes) {
            values[kSecClass] = item.key != nil ? kSecClassKey : item.internet == nil ? kSecClassGenericPassword : kSecClassInternetPassword
            values[kSecAttrAccessGroup] = item.group
            if let key = item.key {
                // A key has no account, service or internet attributes.
                keyAttributes(key, into: &values)
            } else if let internet = item.internet {
                values[kSecAttrAccount] = value(of: item.accountValue)
                values[kSecAttrServer] = internet.server
                values[kSecAttrSecurityDomain] = internet.securityDomain
                values[kSecAttrProtocol] = internet.protocol
                values[kSecAttrAuthenticationType] = internet.authenticationType
                values[kSecAttrPort] = NSNumber(value: internet.port)
                values[kSecAttrPath] = internet.path
            } else {
                values[kSecAttrAccount] = value(of: item.accountValue)
                values[kSecAttrService] = value(of: item.serviceValue)
            }
            if let flags = item.accessControl {
                values[kSecAttrAccessControl] = SecAccessControl(
                    protection: item.accessibility, flags: flags)
            }
            values[kSecAttrAccessible] = item.accessibility.secValue
            values[kSecAttrSynchronizable] = NSNumber(value: item.synchronizable)
            values[kSecAttrCreationDate] = item.creationDate
            values[kSecAttrModificationDate] = item.modificationDate
            if let generic = item.generic { values[kSecAttrGeneric] = generic }
            if let type = item.type { values[kSecAttrType] = NSNumber(value: type) }
            if let label = item.label { values[kSecAttrLabel] = label }
            if let comment = item.comment { values[kSecAttrComment] = comment }
            if let description = item.itemDescription { values[kSecAttrDescription] = description }
            // Only what the caller set: the emulator's provenance is no Apple attribute.
            if let creator = item.creator { values[kSecAttrCreator] = NSNumber(value: creator) }
        }
        if returns.contains(.data) { values[kSecValueData] = item.data }
        if returns.contains(.persistentRef) { values[kSecValuePersistentRef] = PersistentReference.data(for: item) }
        return values
    }

    /// An account or service as it was given: `String` or `Data`.
    private static func value(of attribute: AttributeValue) -> Any {
        switch attribute {
        case .string(let text): text
        case .data(let bytes): bytes
        }
    }
}
