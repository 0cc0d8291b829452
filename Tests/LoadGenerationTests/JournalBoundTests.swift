import Device
import Foundation
import SharedKeychain
import Testing
@testable import LoadGeneration

/// A worker's journal of acknowledged changes holds what the consistency check needs, and no
/// more: its size follows the app's keys, not the length of the run (a soak run's memory grew
/// with it).
@Suite("Journal of acknowledged changes")
struct JournalBoundTests {
    @Test("a long run keeps at most two entries per key and one wipe")
    func journalStaysBoundedByTheKeys() throws {
        let configuration = LoadConfiguration(
            apps: 1, mix: try OperationMix(parsing: "write=40,update=20,remove=30,wipe=10"), itemsPerApp: 4, valueSize: 64,
            operations: 3_000, warmup: 0, team: "LOADTST002")
        let result = try LoadWorker(app: 0, configuration: configuration, keychains: AppKeychains(store: InMemoryStore(), policy: .none)).run()
        #expect(result.journal.count <= 2 * configuration.itemsPerApp + 1, "\(result.journal.count) entries kept")
        #expect(result.journal.count > 0)
    }

    @Test("the check finds the same from the kept entries as from every change", arguments: [1, 2, 3, 4, 5] as [UInt64])
    func keptEntriesCheckAsTheWholeJournal(seed: UInt64) throws {
        let configuration = LoadConfiguration(apps: 1, mix: try OperationMix(parsing: "write=100"), itemsPerApp: 3, team: "LOADTST003")
        var random = SeededGenerator(seed: seed)
        var every: [JournalEntry] = []
        var journal = ChangeJournal()
        var versions = [0, 0, 0]
        var time: UInt64 = 0
        for _ in 0..<200 {
            let key = Int(random.next() % 3)
            let kinds: [JournalEntry.Kind] = [.write, .write, .delete, .wipe]
            let kind = kinds[Int(random.next() % 4)]
            if kind == .write { versions[key] += 1 }
            time += 1 + random.next() % 10
            // Calls overlap: a wipe may end after later calls began.
            let entry = JournalEntry(kind: kind, key: key, version: versions[key], start: time, end: time + random.next() % 40)
            every.append(entry)
            journal.append(entry)
        }
        #expect(journal.count <= 2 * 3 + 1)
        // Final states: each key absent, at its last version, or at an older one.
        for _ in 0..<20 {
            let items = (0..<3).compactMap { key -> KeychainItem? in
                let state = random.next() % 3
                guard state > 0, versions[key] > 0 else { return nil }
                let version = state == 1 ? versions[key] : max(1, versions[key] - 1)
                return KeychainItem(group: configuration.group, account: LoadConfiguration.account(app: 0, key: key), service: "load",
                                    creationDate: Date(), modificationDate: Date(),
                                    data: ItemValue(app: 0, key: key, version: version).encoded(size: 64))
            }
            #expect(ConsistencyReport(journals: [0: journal.entries], finalItems: items, configuration: configuration)
                == ConsistencyReport(journals: [0: every], finalItems: items, configuration: configuration))
            let listed = Set(items.map { LoadConfiguration.user(app: 0, key: ItemValue(decoding: $0.data)?.key ?? 0) })
            let signIns = every.map { entry in
                JournalEntry(kind: entry.kind == .write ? .signIn : entry.kind == .delete ? .removeAccount : .wipe,
                             key: entry.key, version: 0, start: entry.start, end: entry.end)
            }
            var tokenJournal = ChangeJournal()
            signIns.forEach { tokenJournal.append($0) }
            #expect(ConsistencyReport(tokenJournals: [0: tokenJournal.entries], prefill: [], listed: listed, configuration: configuration)
                == ConsistencyReport(tokenJournals: [0: signIns], prefill: [], listed: listed, configuration: configuration))
        }
    }
}
