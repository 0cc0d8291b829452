import CLibsecret
import Foundation
import KeychainStorage
import KeychainTestSupport
@testable import SecretServiceStorage
import Testing

/// Each time any process makes a collection (a shard), gnome-keyring sends `CollectionCreated`
/// and a `PropertiesChanged` carrying every collection's path. libsecret's own service
/// subscribed to both on the main context of the thread that made it, which nothing in our
/// processes runs, so every such message stayed queued for good in every connected process.
@Suite("The store's service subscribes to none of the daemon's signals")
struct QuietServiceTests {
    @Test func collectionsTheStoreMakesQueueNothing() throws {
        try TestKeyring.withSharedAccess {
            // The store connects on first use, on this thread: a subscription of its service
            // would deliver to this context, which only this test sees.
            guard let context = g_main_context_new() else {
                Issue.record("g_main_context_new returned NULL")
                return
            }
            defer { g_main_context_unref(context) }
            g_main_context_push_thread_default(context)
            defer { g_main_context_pop_thread_default(context) }

            let store = try IndexTrustTests.store()
            let group = TestKeyring.uniqueGroup("quiet")
            // Shards of two: 6 items make 3 collections.
            for index in 0..<6 { try store.add(Fixture.item(group, "item\(index)", at: Double(index))) }
            // One more round trip, so what the daemon sent before its last reply has arrived.
            #expect(try store.items(matching: Fixture.all(group), limit: nil).count == 6)
            #expect(g_main_context_pending(context) == 0)
            #expect(try store.delete(matching: Fixture.all(group)) == 6)
        }
    }
}
