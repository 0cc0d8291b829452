import Foundation

/// Encoding and decoding of cache values. Output has sorted keys, so equal objects are equal bytes.
enum CacheJSON {
    /// `object` as compact UTF-8 JSON, the form item values are stored in.
    static func data(_ object: JSONObject) -> Data {
        encode(.object(object), pretty: false)
    }

    /// `value` as UTF-8 JSON with sorted keys; `pretty` for files people read.
    static func encode(_ value: JSONValue, pretty: Bool) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        // A JSONValue holds only finite numbers (the decoder accepts nothing else), so this
        // cannot fail; an empty object is the harmless fallback.
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }

    /// Parses a JSON object; nil when `data` is not UTF-8 JSON with an object at the top.
    ///
    /// Through `JSONSerialization`, not `JSONDecoder`: a `Decodable` JSONValue can only learn a
    /// value's kind by trying each in turn, and every failed try throws, which made reading a
    /// cache item cost tens of microseconds (measured 6x slower; every read of the cache parses
    /// every item of the group).
    static func object(from data: Data) -> JSONObject? {
        guard let parsed = try? JSONSerialization.jsonObject(with: data), let value = JSONValue(parsed) else { return nil }
        return value.objectValue
    }

    /// `known` written over `existing`: every key of `existing` outside `managedKeys` is kept,
    /// the managed ones are replaced by exactly those in `known`. This is how unknown fields
    /// other SDK versions wrote survive our rewrites.
    static func overlay(_ known: JSONObject, on existing: JSONObject?, managedKeys: Set<String>) -> JSONObject {
        var merged = (existing ?? [:]).filter { !managedKeys.contains($0.key) }
        merged.merge(known) { _, new in new }
        return merged
    }
}
