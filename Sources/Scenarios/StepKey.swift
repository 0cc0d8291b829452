/// Any key of a scenario mapping, so that steps can be told apart by the keys they have and
/// keys nobody reads are reported instead of ignored.
struct StepKey: CodingKey, Hashable {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension KeyedDecodingContainer where Key == StepKey {
    /// Fails on the first key not in `allowed`, naming the allowed ones.
    func rejectUnknownKeys(allowed: [String], in what: String) throws {
        guard let stray = allKeys.first(where: { !allowed.contains($0.stringValue) }) else { return }
        throw DecodingError.dataCorrupted(.init(
            codingPath: codingPath + [stray],
            debugDescription: "unknown key '\(stray.stringValue)' in \(what); known keys: \(allowed.joined(separator: ", "))"))
    }

    func has(_ name: String) -> Bool { contains(StepKey(name)) }

    func decode<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
        try decode(type, forKey: StepKey(name))
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, _ name: String) throws -> T? {
        try decodeIfPresent(type, forKey: StepKey(name))
    }

    /// A plain error at `name`.
    func failure(_ name: String, _ message: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: codingPath + [StepKey(name)], debugDescription: message))
    }
}
