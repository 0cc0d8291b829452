import Device
import Foundation
import PropertyBased
import SharedKeychain
import Testing

/// Issue 30, point 4: generated fault rules, good and bad. A rule is accepted exactly when its
/// call is one of Apple's four, its status one a keychain call gives (by name or number), and
/// exactly one of a count (≥ 1), every Nth (≥ 1) and a probability in (0, 1] is given; a refused
/// rule writes nothing, so the plan holds exactly the accepted rules, numbered in order.
@Suite("Properties: fault plan validation")
struct FaultPlanProperties {
    static let calls = SecItemFunction.allCases.map(\.rawValue) + ["SecItemRead", "secitemadd", "", "SecItemCopyMatching "]
    static let statuses = KeychainStatus.allCases.flatMap { [$0.name, "\($0.rawValue)"] } + ["-1", "errSecBogus", "", "0x10", "25308"]
    static let counts: [Int?] = [nil, nil, -1, 0, 1, 2, 1000]
    static let probabilities: [Double?] = [nil, nil, -0.5, 0, 1e-9, 0.5, 1, 1.0000001, .nan, .infinity]

    /// What the rule's inputs should make: accepted or not, by the documented rules alone.
    static func isValid(call: String, status: String, count: Int?, every: Int?, probability: Double?) -> Bool {
        guard SecItemFunction.allCases.map(\.rawValue).contains(call) else { return false }
        let injectable = KeychainStatus.injectable.flatMap { [$0.name.lowercased(), "\($0.rawValue)"] }
        guard injectable.contains(status.lowercased()) else { return false }
        let given = [count != nil, every != nil, probability != nil].filter { $0 }.count
        guard given == 1 else { return false }
        if let count { return count >= 1 }
        if let every { return every >= 1 }
        if let probability { return probability > 0 && probability <= 1 }
        return false
    }

    @Test func aRuleIsAcceptedExactlyWhenItsInputsAreValidAndARefusedOneWritesNothing() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("fault-properties-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let plan = FaultPlanFile(stateDirectory: state)
        var accepted = 0
        let generator = Gen.uint64(in: 0...UInt64.max).array(of: 5)
        SeededProperty.check("fault rules", count: 400, input: generator) { (bits: [UInt64]) throws(any Error) in
            let call = Self.calls[Int(bits[0] % UInt64(Self.calls.count))]
            let status = Self.statuses[Int(bits[1] % UInt64(Self.statuses.count))]
            let count = Self.counts[Int(bits[2] % UInt64(Self.counts.count))]
            let every = Self.counts[Int((bits[2] >> 8) % UInt64(Self.counts.count))]
            let probability = Self.probabilities[Int(bits[3] % UInt64(Self.probabilities.count))]
            let expected = Self.isValid(call: call, status: status, count: count, every: every, probability: probability)
            let made: Result<FaultRule, FaultPlanError>
            do throws(FaultPlanError) {
                made = .success(try FaultRule(call: call, status: status, count: count, every: every, probability: probability))
            } catch {
                made = .failure(error)
            }
            let inputs = "\(call) \(status) count \(String(describing: count)) every \(String(describing: every)) p \(String(describing: probability))"
            switch made {
            case .success(let rule):
                #expect(expected, "accepted \(inputs)")
                accepted += 1
                #expect(try plan.add(rule).number == accepted)
            case .failure(let error):
                #expect(!expected, "refused \(inputs): \(error)")
                #expect(error.status == .param)
                #expect(!error.message.isEmpty)
            }
            #expect(try plan.read().rules.count == accepted)
        }
        #expect(accepted > 0)
    }
}
