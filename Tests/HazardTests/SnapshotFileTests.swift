import Foundation
import Mitigations
import SharedKeychain
import Testing

/// A snapshot file is written item by item (issue 32: a snapshot of 10,000 items never holds
/// its JSON whole), with the bytes encoding the whole snapshot gave.
@Suite("Snapshot files written item by item")
struct SnapshotFileTests {
    static func snapshot(_ count: Int) -> GroupSnapshot {
        let group = "ABCDE12345.com.contoso.snapfile"
        let date = Date(timeIntervalSinceReferenceDate: 785_000_000.123_456)
        let items = (0..<count).map { index in
            StoredItem(group: group, account: "user\(index)@contoso.com", service: "svc/\(index)", generic: Data([1, 2]), type: 2002,
                       label: "l\n\(index)", provenance: Provenance(addedBy: "com.contoso.mail"),
                       creationDate: date.addingTimeInterval(Double(index)), modificationDate: date,
                       data: Data(repeating: UInt8(index % 256), count: 300))
        }
        return GroupSnapshot(group: group, takenAt: date, items: items)
    }

    @Test("the file holds the bytes of the whole snapshot's encoding, and reads back equal", arguments: [0, 1, 400])
    func sameBytesAsWhole(_ count: Int) throws {
        let snapshot = Self.snapshot(count)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("snap-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try snapshot.write(to: file)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .deferredToDate
        encoder.dataEncodingStrategy = .base64
        #expect(try Data(contentsOf: file) == encoder.encode(snapshot))
        #expect(try GroupSnapshot.read(from: file) == snapshot)
    }
}
