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

    /// A pause (`wait`, `every`, `delay`) at `name`, at most a day: a longer one is a typo that
    /// would hang the run.
    func pauseIfPresent(_ name: String) throws -> ScenarioDuration? {
        guard let pause = try decodeIfPresent(ScenarioDuration.self, name) else { return nil }
        guard pause <= ScenarioDuration.longestPause else {
            throw failure(name, "\(name) must be at most \(ScenarioDuration.longestPause); got \(pause)")
        }
        return pause
    }

    /// A count of runs (`times`, `runs`) at `name`, from 1 to a million.
    func countIfPresent(_ name: String) throws -> Int? {
        guard let count = try decodeIfPresent(Int.self, name) else { return nil }
        guard (1...1_000_000).contains(count) else {
            throw failure(name, "\(name) must be a whole number from 1 to 1000000; got \(count)")
        }
        return count
    }
}
