import Foundation
import SharedKeychain

/// Who wiped tokens: MSAL's wipe record as a device has it, and the emulator's own record of the
/// group's deletions (finished, and interrupted by a process that died). Holds no token.
public struct WipeInfoReport: TextReport, Sendable {
    /// MSAL's wipe record, as a device has it: the app that wiped, and when.
    public let bundleId: String?
    public let wipeTime: Date?
    /// Deletions whose process died before they finished.
    public let interrupted: [IntentJournal.Interrupted]
    /// What only the emulator knows: who deleted the group's tokens.
    public let emulatorRecord: EmulatorRecord

    /// The emulator's record, with the note that a device keeps none.
    public struct EmulatorRecord: Encodable, Sendable {
        static let note = "recorded by the emulator; a device keeps none"
        public let note = Self.note
        public let deletions: [IntentJournal.Deletion]
    }

    private let record: WipeRecord?

    private enum CodingKeys: String, CodingKey {
        case bundleId, wipeTime, interrupted, emulatorRecord
    }

    /// What ``TokenCache/wipeInfo()``, ``TokenCache/interruptedDeletions()`` and
    /// ``TokenCache/deletionHistory()`` return, as one report.
    public init(record: WipeRecord?, interrupted: [IntentJournal.Interrupted], deletions: [IntentJournal.Deletion]) {
        self.record = record
        bundleId = record?.bundleID
        wipeTime = record?.wipeTime
        self.interrupted = interrupted
        emulatorRecord = EmulatorRecord(deletions: deletions)
    }

    public var text: String {
        var text = record.map { "on the device: \($0) (MSAL's wipe record, account \(WipeRecord.account))\n" }
            ?? "on the device: no wipe record (a full wipe deletes it with everything else)\n"
        if !emulatorRecord.deletions.isEmpty || !interrupted.isEmpty {
            text += "\(EmulatorRecord.note):\n"
            for deletion in emulatorRecord.deletions { text += "  \(deletion)\n" }
            for deletion in interrupted { text += "  \(deletion)\n" }
        }
        return text
    }
}
