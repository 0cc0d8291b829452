import Foundation
import KeychainStorage
import KeychainTestSupport
@testable import SecretServiceStorage
import Testing

/// A query for the items one app added (a guarded delete, a load run's clean-up in a group that
/// holds other data) searches for that app's provenance: it reads that app's secrets, not every
/// secret of the group, which in a group of 50,000 items took minutes.
@Suite("A query of one app's items reads only that app's secrets")
struct ProvenanceSearchTests {
    /// Shards of two items: 8 items of another app make 5 shards (searched one by one), 24 make
    /// 13 (one search of the whole service).
    @Test(arguments: [8, 24])
    func onlyTheAppsItemsAreRead(others: Int) throws {
        try TestKeyring.withSharedAccess {
            let writer = try IndexTrustTests.store()
            let group = TestKeyring.uniqueGroup("provenance")
            for index in 0..<others {
                try writer.add(Fixture.item(group, "other\(index)", provenance: Provenance(addedBy: "com.contoso.other"), at: Double(index)))
            }
            let mail = (0..<2).map { Fixture.item(group, "mail\($0)", provenance: Provenance(addedBy: "com.contoso.mail"), at: Double(100 + $0)) }
            for item in mail { try writer.add(item) }

            let reader = try IndexTrustTests.store()
            let query = ItemQuery(groups: [group], filters: .init(addedBy: "com.contoso.mail"))
            #expect(try reader.items(matching: query, limit: nil) == mail)
            #expect(reader.secretsRequested.load(ordering: .relaxed) == 2)
            #expect(try reader.delete(matching: query) == 2)
            #expect(try reader.items(matching: Fixture.all(group), limit: nil).count == others)
            // Items with no provenance attribute, other clients', are still found by theirs.
            #expect(try reader.items(matching: ItemQuery(groups: [group], filters: .init(addedBy: Provenance.external)), limit: nil).isEmpty)
            #expect(try reader.delete(matching: Fixture.all(group)) == others)
        }
    }
}
