import Foundation
import Hazards
import KeychainTestSupport
import Mitigations
import SharedKeychain
import Testing

/// The shape every hazard report has: the device's view apart from the emulator's, and each
/// mitigation labelled with where it lives.
@Suite("Hazard reports and mitigation labels")
struct HazardReportTests {
    @Test func theTwoScopesHaveTheLabelsAUserReads() {
        #expect(MitigationScope.deployable.label == "in your apps, deployable on iOS")
        #expect(MitigationScope.whatIf.label == "emulator only: what if the keychain had it")
        // The emulator's own keychain features are what-if, all of them.
        #expect(Mitigation.allCases.allSatisfy { $0.scope == .whatIf })
    }

    /// The deployable fixes and the emulator-only ones the issue names, each where it belongs.
    @Test func everyNamedMitigationIsLabelledWhereItLives() {
        func names(_ scope: MitigationScope) -> [String] { Hazard.allCases.flatMap { $0.mitigations(scope).map(\.name) } }
        let deployable = names(.deployable)
        for fix in ["per-app access groups, single sign-on through the broker", "never call wipeCacheForAllAccounts from a suite app",
                    "removeAccount rather than wipeAccount", "write your own items afterFirstUnlock", "a retry on the account-metadata race"] {
            #expect(deployable.contains { $0.contains(fix) }, "no deployable mitigation says '\(fix)'")
        }
        let whatIf = names(.whatIf)
        for feature in ["guarded delete", "audit journal", "snapshot and restore", "compare-and-swap"] {
            #expect(whatIf.contains { $0.contains(feature) }, "no what-if mitigation says '\(feature)'")
            #expect(!deployable.contains { $0.contains(feature) }, "'\(feature)' is labelled deployable")
        }
        for hazard in Hazard.allCases {
            #expect(hazard.mitigations.allSatisfy { $0.label == $0.scope.label })
        }
    }

    /// Deployable runs by default; what-if only when asked, and only where there is one.
    @Test func theVariantsFollowTheHazardsMitigations() throws {
        #expect(Hazard.wipeAll.variants(whatIf: false) == [.unmitigated, .deployable])
        #expect(Hazard.wipeAll.variants(whatIf: true) == [.unmitigated, .deployable, .whatIf])
        #expect(Hazard.accountMetadataRace.variants(whatIf: true) == [.unmitigated, .deployable])
        #expect(Hazard.lostUpdate.variants(whatIf: false) == [.unmitigated])
        #expect(Hazard.lostUpdate.variants(whatIf: true) == [.unmitigated, .whatIf])
        let store = InMemoryStore()
        #expect(try Hazard.wipeAll.compare(on: store).runs.map(\.variant) == [.unmitigated, .deployable])
        let error = try #require(throws: HazardError.self) { try Hazard.brokerSpoof.run(.whatIf, on: store) }
        #expect(error.description.contains("no what-if mitigation"))
    }

    /// The JSON carries the two views as separate objects, the label with the emulator's.
    @Test func theJSONSeparatesTheDevicesViewFromTheEmulators() throws {
        let report = try Hazard.wipeAll.run(.unmitigated, on: InMemoryStore())
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let object = try #require(try JSONSerialization.jsonObject(with: encoder.encode(report)) as? [String: Any])
        #expect(object["steps"] == nil)
        #expect(object["variant"] as? String == "unmitigated")
        let device = try #require(object["deviceView"] as? [String])
        #expect(device == report.deviceView && !device.isEmpty)
        let emulator = try #require(object["emulatorView"] as? [String: Any])
        #expect(emulator["label"] as? String == "recorded by the emulator; a device keeps none")
        #expect((emulator["lines"] as? [String])?.isEmpty == false)
        #expect((emulator["losses"] as? [[String: Any]])?.first?["causedBy"] as? [String] == ["com.contoso.calendar"])
        #expect(emulator["audit"] is [Any])
        let fixed = try Hazard.wipeAll.run(.deployable, on: InMemoryStore())
        let labelled = try #require(try JSONSerialization.jsonObject(with: encoder.encode(fixed)) as? [String: Any])
        let mitigations = try #require(labelled["mitigations"] as? [[String: Any]])
        #expect(!mitigations.isEmpty && mitigations.allSatisfy { $0["scope"] as? String == "deployable" && $0["label"] as? String == "in your apps, deployable on iOS" })
    }
}
