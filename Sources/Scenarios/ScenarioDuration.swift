import Foundation

/// A length of time in a scenario file: `250ms`, `2s`, `1.5s`, `10m`, `2h`, or a bare number of
/// seconds.
public struct ScenarioDuration: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The length in seconds.
    public let seconds: Double

    /// - Parameter seconds: not negative.
    public init(seconds: Double) {
        self.seconds = seconds
    }

    /// The longest duration a file may give (`advance-clock` included): ten years.
    public static let longest = ScenarioDuration(seconds: 315_360_000)
    /// The longest pause (`wait`, `every`, `delay`): a day.
    public static let longestPause = ScenarioDuration(seconds: 86_400)

    private static let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]

    /// Parses `250ms`, `2s`, `10m`, `2h` or `1.5`; nil for anything else, a negative length, or
    /// one longer than ``longest``.
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        var number = Substring(trimmed)
        var scale = 1.0
        // "ms" before "m" and "s": the longest suffix wins.
        for unit in Self.units.sorted(by: { $0.suffix.count > $1.suffix.count }) where trimmed.hasSuffix(unit.suffix) {
            number = trimmed.dropLast(unit.suffix.count)
            scale = unit.seconds
            break
        }
        guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value.isFinite, value >= 0,
            value * scale <= Self.longest.seconds
        else { return nil }
        seconds = value * scale
    }

    /// `250ms`, `2s`, `1.5s`, `2h`.
    public var description: String {
        if seconds >= 3600, seconds.truncatingRemainder(dividingBy: 3600) == 0 { return "\(Int(seconds / 3600))h" }
        if seconds >= 60, seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(seconds / 60))m" }
        if seconds < 1 { return "\(Int((seconds * 1000).rounded()))ms" }
        return seconds == seconds.rounded() ? "\(Int(seconds))s" : "\(seconds)s"
    }

    /// Reads a string (`250ms`) or a number of seconds.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) {
            guard number.isFinite, number >= 0, number <= Self.longest.seconds else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "a duration must be from 0 to \(Self.longest) (\(Int(Self.longest.seconds)) seconds); got \(number)")
            }
            self.init(seconds: number)
            return
        }
        let text = try container.decode(String.self)
        guard let parsed = ScenarioDuration(parsing: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not a duration from 0 to \(Self.longest); write 250ms, 2s, 10m, 2h or a number of seconds")
        }
        self = parsed
    }

    /// Writes the number of seconds.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(seconds)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.seconds < rhs.seconds }
}
