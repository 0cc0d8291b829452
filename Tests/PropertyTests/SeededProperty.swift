import Foundation
import PropertyBased
import Testing

/// Runs a property over generated cases from a fixed seed, so CI and a developer see the same
/// cases: `SHARED_KEYCHAIN_PROPERTY_SEED` picks another seed (the failure message names the
/// seed and the case to reproduce). Prints how many cases ran, for CI's log.
///
/// PropertyBased's own `fixedSeed` trait is meant for reproducing one failure and reports an
/// issue whenever it is applied, so the seeding is done here with its public Xoshiro generator.
enum SeededProperty {
    static let seed: UInt64 = {
        if let text = ProcessInfo.processInfo.environment["SHARED_KEYCHAIN_PROPERTY_SEED"], let value = UInt64(text) {
            return value
        }
        return 20_261_124
    }()

    /// Checks `body` for `count` values of `input`. A thrown error or a failed expectation in
    /// `body` fails the test, naming the case number and the seed.
    static func check<Value, Shrinks: Sequence>(
        _ name: String, count: Int, input: Generator<Value, Shrinks>,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (Value) throws -> Void
    ) {
        var random = Xoshiro(seed: (seed, seed ^ 0x9E37_79B9_7F4A_7C15, ~seed, seed &* 31))
        var failed = 0
        for number in 1...count {
            let value = input.run(using: &random)
            do {
                try body(value)
            } catch {
                failed += 1
                Issue.record("\(name): case \(number) of seed \(seed) threw \(error)\ninput: \(value)", sourceLocation: sourceLocation)
            }
            if failed > 0 { break }
        }
        print("property '\(name)': \(count) cases, seed \(seed)")
    }
}
