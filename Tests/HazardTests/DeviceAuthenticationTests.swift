import Device
import Foundation
import Logging
import Mitigations
import SharedKeychain
import Testing
@testable import Hazards

/// Issue 27, finding 3: a hazard run's apps, on the device's store, ask the device's
/// authentication before they read or change an item whose access control asks the user,
/// through the mitigated view too.
@Suite("Hazard apps ask the device's authentication")
struct HazardAuthenticationTests {
    @Test(arguments: [false, true])
    func aHazardAppsReadOfAGuardedItemAsksTheDevice(_ mitigated: Bool) throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("hazard-auth-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let device = Device(stateDirectory: state)
        let store = try device.openStore(.memory, logger: Logger(label: "test"))
        let suite = try SimulatedSuite(store: store) { team in
            mitigated ? MitigationPolicy(groups: ["\(team.rawValue).com.contoso.mail": .all()]) : .none
        }
        let mail = try suite.app("com.contoso.mail", groups: ["com.contoso.mail"])
        var guarded = NewItem(account: "guarded", service: "s", data: Data("guarded secret".utf8))
        guarded.accessControl = [.userPresence]
        try mail.keychain.add(guarded)
        try device.setAuthenticationDecision(.deny)
        let read = #expect(throws: KeychainError.self) { try mail.keychain.first(KeychainQuery(account: "guarded")) }
        #expect(read?.status == .authFailed)
        try device.setAuthenticationDecision(.allow)
        #expect(try mail.keychain.first(KeychainQuery(account: "guarded")).data == Data("guarded secret".utf8))
    }
}
