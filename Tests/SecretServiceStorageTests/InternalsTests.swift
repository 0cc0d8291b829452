import Foundation
import KeychainStorage
import Testing

@testable import SecretServiceStorage

@Suite("Secret Service internals")
struct InternalsTests {
    /// One operation of several D-Bus calls ends within its limit, not one limit per call.
    @Test("a call inside an operation whose time is up fails at once as a timeout, without running")
    func operationDeadline() throws {
        CallDeadline.operation(seconds: 0) {
            var ran = false
            let failure = #expect(throws: GLibFailure.self) {
                try CallDeadline.run(seconds: 5, call: "SearchItems") { _, _ in ran = true }
            }
            #expect(failure?.kind == .timedOut)
            #expect(!ran)
        }
        // Inside a longer operation, a call still runs; an inner operation cannot extend an outer one.
        try CallDeadline.operation(seconds: 60) {
            var ran = false
            try CallDeadline.run(seconds: 5, call: "SearchItems") { _, _ in ran = true }
            #expect(ran)
            try CallDeadline.operation(seconds: 3600) {
                let end = try #require(CallDeadline.operationEnd)
                #expect(ContinuousClock.now.duration(to: end.instant) <= .seconds(60))
            }
        }
    }

    @Test("GetSecrets batches follow the daemon's pace: a quarter of a call's limit each, growing at most twofold")
    func secretsBatchFollowsThePace() {
        // gnome-keyring holding 10,000 items: 1,000 secrets in 7 s; a batch of that size would time out.
        #expect(SecretServiceClient.nextBatch(after: 1_000, took: .seconds(7), limit: 5, most: 1_000) == 178)
        // A fast daemon: twice the last batch, up to the most.
        #expect(SecretServiceClient.nextBatch(after: 100, took: .milliseconds(20), limit: 5, most: 1_000) == 200)
        #expect(SecretServiceClient.nextBatch(after: 800, took: .milliseconds(100), limit: 5, most: 1_000) == 1_000)
        // A stalled answer still reads on, ten at a time; a test's small batches stay small.
        #expect(SecretServiceClient.nextBatch(after: 100, took: .seconds(60), limit: 5, most: 1_000) == 10)
        #expect(SecretServiceClient.nextBatch(after: 3, took: .milliseconds(1), limit: 5, most: 3) == 3)
    }

    @Test("a batch of a long operation renews its deadline and every outer one's, as GetSecrets in batches does")
    func operationDeadlineRenewedByBatch() throws {
        try CallDeadline.operation(seconds: 1) {
            try CallDeadline.operation(seconds: 1) {
                CallDeadline.renew(seconds: 60)
                let inner = try #require(CallDeadline.operationEnd)
                #expect(ContinuousClock.now.duration(to: inner.instant) > .seconds(30))
                let outer = try #require(inner.outer)
                #expect(ContinuousClock.now.duration(to: outer.instant) > .seconds(30))
            }
        }
        // Outside an operation there is nothing to renew, and a call keeps its own limit.
        CallDeadline.renew(seconds: 60)
        #expect(CallDeadline.operationEnd == nil)
    }

    @Test("the envelope holds the whole record, binary-safe, with exact dates")
    func envelopeRoundTrip() throws {
        let item = Fixture.item(
            "G.group", "acc", "svc", generic: Data([0, 1, 255]), type: 5, label: "l", creator: 0x6161_706C,
            provenance: Provenance(addedBy: "com.contoso.mail", modifiedBy: "com.contoso.calendar"), at: 0.000_001,
            data: Data((0...255).map { UInt8($0) }))
        let envelope = ItemEnvelope(item: item, sequence: 42)
        let bytes = try envelope.encoded()
        #expect(bytes.prefix(8) == Data("SKCITEM1".utf8))
        let decoded = try ItemEnvelope.decode(bytes, using: JSONDecoder())
        #expect(decoded.item == item)
        #expect(decoded.sequence == 42)
        // Milliseconds are there for other readers.
        let length = Int(bytes[8]) << 24 | Int(bytes[9]) << 16 | Int(bytes[10]) << 8 | Int(bytes[11])
        let header = try JSONSerialization.jsonObject(with: bytes.subdata(in: 12..<(12 + length))) as? [String: Any]
        #expect(header?["creationDate"] as? Int == Int((item.creationDate.timeIntervalSince1970 * 1000).rounded(.down)))
        #expect(header?["generic"] as? String == "AAH/")
        #expect(header?["label"] as? String == "l")
        #expect(header?["creator"] as? Int == 0x6161_706C)
        #expect(header?["added"] as? String == "com.contoso.mail" && header?["modified"] as? String == "com.contoso.calendar")
    }

    /// Records of the layout before provenance hold the adding app's bundle ID as a string
    /// creator: it reads as provenance, never as a number; a decimal string was a caller's
    /// kSecAttrCreator (SecItem stored it as text) and stays one.
    @Test("a record of the previous layout: a bundle ID creator is provenance, a decimal one a kSecAttrCreator")
    func legacyCreatorInEnvelope() throws {
        func decode(creator: String) throws -> StoredItem {
            let json = #"{"v":1,"group":"g","account":"a","service":"s","creationDate":1000,"modificationDate":2000,"sequence":1,"creator":"# + creator + "}"
            var bytes = Data("SKCITEM1".utf8)
            bytes += [0, 0, 0, UInt8(json.utf8.count)]
            bytes += Data(json.utf8)
            return try ItemEnvelope.decode(bytes, using: JSONDecoder()).item
        }
        let bundle = try decode(creator: #""com.contoso.mail""#)
        #expect(bundle.creator == nil)
        #expect(bundle.provenance == Provenance(addedBy: "com.contoso.mail"))
        let numeric = try decode(creator: #""1633776748""#)
        #expect(numeric.creator == 1_633_776_748 && numeric.provenance == nil)
        // A bundle ID that looks like a number out of range is no number.
        let huge = try decode(creator: #""4294967296""#)
        #expect(huge.creator == nil && huge.provenance?.addedBy == "4294967296")
        let current = try decode(creator: "42")
        #expect(current.creator == 42 && current.provenance == nil)
        // The attributes a watch reads: the previous layout's creator attribute held the bundle ID.
        #expect(ItemAttributes.addedBy(in: ["creator": "com.contoso.mail"]) == "com.contoso.mail")
        #expect(ItemAttributes.addedBy(in: ["creator": "42"]) == nil)
        #expect(ItemAttributes.addedBy(in: ["creator": "42", "sharedkeychain:added-by": "com.contoso.calendar"]) == "com.contoso.calendar")
    }

    @Test("a minimal header (milliseconds only, nil attributes absent) decodes")
    func minimalEnvelope() throws {
        let json = #"{"v":1,"group":"g","account":"a","service":"s","creationDate":1000,"modificationDate":2000,"sequence":1}"#
        var bytes = Data("SKCITEM1".utf8)
        bytes += [0, 0, 0, UInt8(json.utf8.count)]
        bytes += Data(json.utf8)
        bytes += Data([9, 9])
        let decoded = try ItemEnvelope.decode(bytes, using: JSONDecoder())
        #expect(decoded.item.creationDate == Date(timeIntervalSince1970: 1))
        #expect(decoded.item.generic == nil && decoded.item.type == nil && decoded.item.label == nil)
        #expect(decoded.item.data == Data([9, 9]))
    }

    @Test("foreign or damaged secrets are rejected without echoing them")
    func badEnvelopes() {
        for bytes in [Data("plain password".utf8), Data("SKCITEM1".utf8) + Data([0, 0, 1, 0]) + Data("{}".utf8)] {
            #expect(throws: ItemEnvelope.DecodingError.self) { try ItemEnvelope.decode(bytes, using: JSONDecoder()) }
        }
    }

    @Test("collection labels and paths follow gnome-keyring's naming")
    func collectionNames() {
        let label = CollectionDirectory.label(for: "ABCDE12345.com.myapp.mycache")
        #expect(label == "group-ABCDE12345.com.myapp.mycache")
        #expect(
            CollectionDirectory.expectedPath(forLabel: label)
                == "/org/freedesktop/secrets/collection/group_2dABCDE12345_2ecom_2emyapp_2emycache")
        #expect(CollectionDirectory.label(for: "a/b_c ü") == "group-a_2fb_5fc_20_c3_bc")
        #expect(CollectionDirectory.label(for: String(repeating: "x", count: 300)).hasPrefix("group-_sha256_"))
        #expect(CollectionDirectory.displayName(of: CollectionDirectory.expectedPath(forLabel: label)) == label)
        #expect(CollectionDirectory.displayName(of: "/org/freedesktop/secrets/collection/login") == "login")
    }

    @Test("a shard's label names its shard back, as its collection path does; another group's label names none")
    func shardLabels() {
        let group = "ABCDE12345.com.myapp.mycache"
        let base = CollectionDirectory.label(for: group)
        for protection in ProtectionClass.allCases {
            for number in [0, 1, 10, 313, ShardIndex.aloneBase] {
                let shard = ShardIndex.ShardID(protection, number)
                let label = CollectionDirectory.label(for: group, shard: shard)
                #expect(CollectionDirectory.shardID(labelSuffix: label.dropFirst(base.count)) == shard)
                #expect(CollectionDirectory.shardID(of: CollectionDirectory.expectedPath(forLabel: label), group: group) == shard)
            }
        }
        // Groups whose labels start with this one's (`~` in a name is escaped), and no shard's spelling.
        for other in [group + ".b", group + "~ck", group + "-2"] {
            #expect(CollectionDirectory.shardID(labelSuffix: CollectionDirectory.label(for: other).dropFirst(base.count)) == nil)
        }
        for suffix in ["~0", "~ck~0", "~01", "~", "~ck~", "~3x", "~-3", "~+3", "~ck~ck"] {
            #expect(CollectionDirectory.shardID(labelSuffix: Substring(suffix)) == nil, "\(suffix)")
        }
    }

    @Test("the layout never prints its password")
    func redactedLayout() {
        let layout = SecretServiceStore.Layout.collectionPerGroup(masterPassword: "hunter2")
        #expect(!"\(layout)".contains("hunter2"))
        #expect(!String(reflecting: layout).contains("hunter2"))
        var dumped = ""
        dump(layout, to: &dumped)
        #expect(!dumped.contains("hunter2"))
    }

    @Test("a missing program names the Debian package to install")
    func missingExecutable() {
        #expect(throws: PrivateKeyringError.missingExecutable(name: "no-such-daemon-sk", debianPackage: "gnome-keyring")) {
            try ProcessRunner.find("no-such-daemon-sk", debianPackage: "gnome-keyring")
        }
        let message = PrivateKeyringError.missingExecutable(name: "gnome-keyring-daemon", debianPackage: "gnome-keyring")
            .description
        #expect(message.contains("apt-get install gnome-keyring"))
    }

    @Test("waiting for a process's exit ends when it exits, and is bounded while it runs")
    func waitForExit() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/cat")
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let pid = process.processIdentifier
        // cat runs until its input closes.
        #expect(!ProcessTable.waitForExit(pid, named: "cat", seconds: 0.1))
        #expect(ProcessTable.isRunning(pid, named: "cat"))
        // Another program's name is not this process, whatever runs under the pid.
        #expect(!ProcessTable.isRunning(pid, named: "gnome-keyring-daemon"))
        try input.fileHandleForWriting.close()
        #expect(ProcessTable.waitForExit(pid, named: "cat", seconds: 10))
        process.waitUntilExit()
        #expect(ProcessTable.waitForExit(pid, named: "cat", seconds: 10))
    }
}
