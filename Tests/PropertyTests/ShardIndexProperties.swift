import Foundation
import PropertyBased
@testable import SecretServiceStorage
import Testing

/// The shard index file under arbitrary appends: torn lines, garbage and valid records mixed.
/// Reading it applies exactly the records of its complete lines in order (as a model does), or,
/// once a complete line is no record, says the file cannot be used (the store then rebuilds it
/// from the keyring): never an index that silently skipped a line. Reading it in pieces gives
/// what reading it whole gives.
@Suite("Properties: the shard index file")
struct ShardIndexProperties {
    static let fragments = [
        "+ 0 00000000000000a1 00000000000000b1\n", "+ 3 00000000000000a2 00000000000000b2\n",
        "+ ck1 00000000000000a1 00000000000000b1\n", "+ dk0 00000000000000a3 00000000000000b3\n",
        "- 00000000000000a1 00000000000000b1\n", "- 00000000000000a2 00000000000000b2\n",
        "+ x 1 2\n", "+ -1 a b\n", "- zz yy\n", "+ 0 00000000000000a1\n", "garbage", "\n", "+ 7 ", "00000000000000a4 ",
        "00000000000000b4\n", "+ ck", "99999999999999999999 1 1\n",
    ]

    /// The first six fragments: well-formed records.
    static let records = 6

    @Test("every prefix of an arbitrary index file reads as the model of its complete lines, or as unusable")
    func indexReadsLikeItsModel() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-index-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let locks = GroupLocks(directory: directory, waitLimit: 1)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let input = Gen.uint64(in: 0...UInt64.max).array(of: 1...40)
        var run = 0
        SeededProperty.check("shard index files", count: 300, input: input) { bits in
            run += 1
            let group = "G.\(run)"
            let files = ShardIndexFiles(locks: locks)
            try files.replace(group, with: ShardIndex())
            var text = ""
            for (step, value) in bits.enumerated() {
                // Mostly records, so that files stay usable for a while.
                let choices = value % 4 == 0 ? Self.fragments.count : Self.records
                let piece = Self.fragments[Int((value / 4) % UInt64(choices))]
                text += piece
                let handle = try FileHandle(forWritingTo: files.file(for: group))
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(piece.utf8))
                try handle.close()
                // Read after some appends (incrementally), always at the end.
                guard step % 3 == 0 || step == bits.count - 1 else { continue }
                #expect(try Self.read(files, group) == Self.model(text), "after \(step + 1) pieces")
            }
            // A reader that starts fresh sees the same.
            #expect(try Self.read(ShardIndexFiles(locks: locks), group) == Self.model(text))
        }
    }

    /// The index as `files` reads it; nil when it says the file cannot be used.
    static func read(_ files: ShardIndexFiles, _ group: String) throws -> ShardIndex? {
        switch try files.load(group, epoch: nil) {
        case .loaded(let index, _): index
        case .absent, .unusable: nil
        }
    }

    /// The index a reader must build from `text`: its complete lines, all records; nil when one
    /// of them is not a record.
    static func model(_ text: String) -> ShardIndex? {
        var index = ShardIndex()
        guard let end = text.lastIndex(of: "\n") else { return index }
        for line in text[...end].split(separator: "\n") {
            guard let record = ShardIndex.Record(line: line) else { return nil }
            index.apply(record)
        }
        return index
    }
}
