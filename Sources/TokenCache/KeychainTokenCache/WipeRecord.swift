import Foundation
import SharedKeychain

/// Who last deleted refresh tokens, and when: MSAL's wipe record (IdentityCore
/// `MSIDKeychainTokenCache.m` `saveWipeInfoWithContext`, `wipeInfo:`). Account `TokenWipe`,
/// generic `Microsoft.ADAL.WipeAll.1`, no service, no type, `afterFirstUnlockThisDeviceOnly`;
/// its data an `NSKeyedArchiver` archive (secure coding) of the dictionary `{bundleId: NSString,
/// wipeTime: NSDate}`, so a tool that reads the SDK's record reads this one. Written after every
/// refresh-token delete; a full wipe deletes it with everything else. The SDK reads it only for
/// telemetry when a cache lookup finds nothing.
public struct WipeRecord: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The bundle ID of the app that deleted the tokens.
    public let bundleID: String
    /// When it deleted them.
    public let wipeTime: Date

    /// - Parameters: the app that wiped and when.
    public init(bundleID: String, wipeTime: Date) {
        self.bundleID = bundleID
        self.wipeTime = wipeTime
    }

    /// `last wiped by <bundle> at <ISO 8601 time>`, as the SDK's diagnostics say it.
    public var description: String { "last wiped by \(DisplayText(bundleID)) at \(Self.format(wipeTime))" }

    /// `kSecAttrGeneric` of the record, as the SDKs write it.
    public static let generic = "Microsoft.ADAL.WipeAll.1"
    /// `kSecAttrAccount` of the record.
    public static let account = "TokenWipe"
    /// `kSecAttrService` of the record: none (Apple's empty default).
    public static let service = ""

    static let layout = ItemLayout(account: account, service: service, generic: Data(generic.utf8), type: nil)

    /// The SDK's `defaultWipeQuery`: account and generic, no service.
    static func query(in group: String) -> KeychainQuery {
        KeychainQuery(group: group, account: account, generic: Data(generic.utf8))
    }

    /// Whether `item` is a wipe record (the SDK's, or one of this emulator's earlier layout,
    /// whose service was the generic string).
    static func isRecord(_ item: KeychainItem) -> Bool {
        item.account == account && item.generic == Data(generic.utf8)
    }

    /// The record as the SDK archives it.
    func archive() throws(TokenCacheError) -> Data {
        let dictionary = NSDictionary(dictionary: ["bundleId": NSString(string: bundleID), "wipeTime": NSDate(timeIntervalSince1970: wipeTime.timeIntervalSince1970)])
        do {
            return try NSKeyedArchiver.archivedData(withRootObject: dictionary, requiringSecureCoding: true)
        } catch {
            throw .invalidArgument("cannot archive the wipe record: \(error)")
        }
    }

    /// Reads a stored record: the SDK's keyed archive (with ``KeyedArchive``'s checks and
    /// limits, never `NSKeyedUnarchiver`), or the JSON this emulator wrote before (`wipeTime` as
    /// ISO 8601 or epoch seconds), which the next write converts.
    init(data: Data) throws(FieldError) {
        do throws(ItemDecodingError) {
            let archived = try KeyedArchive.root(of: data, allowing: Self.archivedClasses)
            guard case .dictionary = archived else { throw .wrongType(key: NSKeyedArchiveRootObjectKey, expected: "a dictionary", found: archived.kindName) }
            guard let bundle = try archived.string("bundleId") else { throw .malformed("the archive has no 'bundleId' string") }
            guard let date = try archived.date("wipeTime") else { throw .malformed("the archive has no 'wipeTime' date") }
            bundleID = bundle
            wipeTime = date
            return
        } catch .notAnArchive {
            // Not a keyed archive: the emulator's earlier JSON, below.
        } catch {
            throw FieldError(error.reason)
        }
        guard let object = CacheJSON.object(from: data) else {
            throw FieldError("the value is neither an NSKeyedArchiver archive nor this emulator's earlier JSON")
        }
        let fields = FieldReader(object: object)
        bundleID = try fields.string("bundleId")
        if case .string(let text)? = object["wipeTime"], let date = try? Date(text, strategy: .iso8601) {
            wipeTime = date
        } else if let date = try fields.timestamp("wipeTime") {
            wipeTime = date
        } else {
            throw FieldError("'wipeTime' is missing")
        }
    }

    /// The classes the record's archive may hold (`wipeInfo:`'s secure-coding classes).
    static let archivedClasses: Set<String> = ["NSDictionary", "NSMutableDictionary", "NSString", "NSMutableString", "NSDate"]

    static func format(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
