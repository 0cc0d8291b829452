import Foundation

/// Who last deleted refresh tokens or wiped the group, and when. The SDKs write it after every
/// such deletion and read it back only to explain a later cache miss ("last wiped by X at T").
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
    public var description: String { "last wiped by \(bundleID) at \(Self.format(wipeTime))" }

    /// `kSecAttrGeneric` of the record, as the SDKs write it.
    public static let generic = "Microsoft.ADAL.WipeAll.1"
    /// `kSecAttrAccount` of the record.
    public static let account = "TokenWipe"
    /// `kSecAttrService` of the record. The SDKs' layout names no service for it; the emulator
    /// uses the generic string, so the record has a stable primary key of its own.
    public static let service = generic

    static let layout = ItemLayout(account: account, service: service, generic: Data(generic.utf8), type: nil)

    /// `{"bundleId": ..., "wipeTime": "<ISO 8601, UTC>"}`.
    var data: Data {
        CacheJSON.data(["bundleId": .string(bundleID), "wipeTime": .string(Self.format(wipeTime))])
    }

    /// Reads a stored record; `wipeTime` may also be whole epoch seconds.
    init(data: Data) throws(FieldError) {
        guard let object = CacheJSON.object(from: data) else { throw FieldError("the value is not a JSON object") }
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

    static func format(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
