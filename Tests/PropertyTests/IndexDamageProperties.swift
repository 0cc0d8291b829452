import Foundation
import KeychainStorage
import KeychainTestSupport
import PropertyBased
@testable import SecretServiceStorage
import Testing

/// The shard index is a hint: whatever happens to a group's records (dropped, moved to another
/// shard, kept), the keyring decides what a fresh store sees and which keys are taken.
@Suite("Properties: a damaged shard index")
struct IndexDamageProperties {
    @Test("any records dropped or moved: a fresh store lists every item, and every key stays taken")
    func damagedRecordsHideNothing() throws {
        // Per record: keep it, drop it, or move it to another shard (0-3).
        let damage = Gen.uint64(in: 0...UInt64.max).array(of: 5...5)
        try TestKeyring.withSharedAccess {
            SeededProperty.check("damaged index records", count: 12, input: damage) { choices in
                let store = try TestKeyring.unguardedStore(.smallShards)
                let group = TestKeyring.uniqueGroup("prop-index")
                let items = (0..<5).map { number in
                    StoredItem(
                        group: group, account: "a\(number)", service: "s", label: nil, creator: nil,
                        creationDate: Date(timeIntervalSinceReferenceDate: Double(number)),
                        modificationDate: Date(timeIntervalSinceReferenceDate: Double(number)), data: Data("d".utf8))
                }
                for item in items { try store.add(item) }
                defer { _ = try? store.delete(matching: ItemQuery(groups: [group])) }

                let file = store.indexes.file(for: group)
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
                var kept = [lines[0]]
                for (line, choice) in zip(lines.dropFirst(), choices) {
                    var fields = line.split(separator: " ").map(String.init)
                    switch choice % 3 {
                    case 0: kept.append(line)
                    case 1: continue
                    default:
                        fields[1] = String((choice / 3) % 4)
                        kept.append(fields.joined(separator: " "))
                    }
                }
                try Data((kept.joined(separator: "\n") + "\n").utf8).write(to: file)

                let adder = try TestKeyring.unguardedStore(.smallShards)
                for item in items {
                    #expect(throws: StorageError.duplicateItem(item.primaryKey)) { try adder.add(item) }
                }
                let reader = try TestKeyring.unguardedStore(.smallShards)
                #expect(try reader.items(matching: ItemQuery(groups: [group]), limit: nil) == items)
            }
        }
    }
}
