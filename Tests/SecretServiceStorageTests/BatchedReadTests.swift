import Foundation
import KeychainStorage
import KeychainTestSupport
@testable import SecretServiceStorage
import Testing

/// A read decodes each GetSecrets batch as it comes (issue 32: memory of a 10,000-item read
/// stays under twice its data): batches that cut across groups, and items a filter leaves out,
/// still give the answer the in-memory store gives, in its order.
@Suite("Reads decoded batch by batch answer as the in-memory store does")
struct BatchedReadTests {
    @Test("a read of two groups in batches of 3 equals the in-memory store's, in creation order, filters applied")
    func batchesAcrossGroups() throws {
        try TestKeyring.withSharedAccess {
            let first = TestKeyring.uniqueGroup("batchA")
            let second = TestKeyring.uniqueGroup("batchB")
            // Interleaved creation dates, so the two groups' items mix in the answer.
            var items: [StoredItem] = []
            for index in 0..<5 {
                let service = index % 2 == 0 ? "kept" : "other"
                items.append(Fixture.item(first, "a\(index)", service, at: Double(2 * index)))
            }
            for index in 0..<4 {
                items.append(Fixture.item(second, "b\(index)", "kept", at: Double(2 * index + 1)))
            }
            let writer = try IndexTrustTests.store()
            let memory = InMemoryStore()
            for item in items {
                try writer.add(item)
                try memory.add(item)
            }
            let batched = try TestKeyring.unguardedStore(.collectionPerGroup) { $0.secretsBatch = 3 }
            let everything = Fixture.all(first, second)
            let expected = try memory.items(matching: everything, limit: nil)
            #expect(try batched.items(matching: everything, limit: nil) == expected)
            #expect(expected.map(\.account) == ["a0", "b0", "a1", "b1", "a2", "b2", "a3", "b3", "a4"])
            var kept = everything
            kept.service = "kept"
            #expect(try batched.items(matching: kept, limit: nil) == memory.items(matching: kept, limit: nil))
            #expect(try batched.items(matching: everything, limit: 4) == Array(expected.prefix(4)))
        }
    }
}
