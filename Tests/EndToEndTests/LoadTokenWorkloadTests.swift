import Foundation
import Testing

/// `load --workload token` as processes on the private keyring: every app starts (MSAL's
/// team-ID probe does not make them race), and account-metadata entries lost to MSAL's
/// read-modify-write are reported apart, as expected on a device, never as lost sign-ins.
@Suite("End to end: load --workload token")
struct LoadTokenWorkloadTests {
    /// Found in a trial: app processes starting together each probed for the team ID in an empty
    /// group, and those whose add lost to another's failed with errSecDuplicateItem before they
    /// were ready. The runner now adds the probe before it starts them.
    @Test("eight app processes signing users in all start, and MSAL's metadata losses are counted apart")
    func eightAppProcessesSignUsersIn() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        for _ in 0..<3 {
            let load = try cli.run(["load", "--workload", "token", "--mix", "signin=100", "--apps", "8", "--items", "20",
                                    "--operations", "3", "--warmup", "0", "--json"])
            #expect(load.status == 0, "\(load.standardError)")
            let report = try load.jsonObject()
            let consistency = try #require(report["consistency"] as? [String: Any])
            #expect(consistency["lostSignIns"] as? Int == 0)
            #expect(consistency["accountMetadataEntriesLost"] is Int)
            #expect(report["unexpectedErrors"] as? Int == 0)
            let signIn = try #require((report["operations"] as? [[String: Any]])?.first)
            #expect(signIn["count"] as? Int == 8 * 3)
            // A sign-in writes about MSAL's 7 items (a repeated one deletes the old access token, skips the unchanged metadata).
            #expect((signIn["itemsWrittenPerOperation"] as? Double).map { $0 >= 6 && $0 <= 8 } == true, "\(signIn)")
        }
        let text = try cli.run(["load", "--workload", "token", "--mix", "signin=100", "--apps", "2", "--items", "20",
                                "--operations", "3", "--warmup", "0"])
        #expect(text.status == 0, "\(text.standardError)")
        #expect(text.output.contains("account-metadata entries lost to MSAL's read-modify-write"))
        #expect(text.output.contains("items written"))
    }
}
