import Foundation
import KeychainStorage

extension LockHolder {
    /// The process holding a `flock` on the file open at `descriptor`, from `/proc/locks` (whose
    /// lines read `1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF`; `fcntl`'s F_GETLK does not
    /// see `flock` locks). Nil when no holder is listed or its process is gone.
    static func ofFlock(on descriptor: Int32) -> LockHolder? {
        var status = stat()
        guard fstat(descriptor, &status) == 0,
            let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8)
        else { return nil }
        let device = UInt64(status.st_dev)
        // glibc's major() and minor(), which Swift does not import.
        let major = ((device >> 8) & 0xFFF) | ((device >> 32) & ~0xFFF)
        let minor = (device & 0xFF) | ((device >> 12) & ~0xFF)
        let file = "\(String(major, radix: 16)):\(String(minor, radix: 16)):\(status.st_ino)"
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // Waiters are listed as "1: -> FLOCK ..."; this store never blocks in flock, others may.
            guard fields.count >= 6, fields[1] == "FLOCK", let pid = Int32(fields[4]), Self.sameFile(fields[5], file) else { continue }
            guard let process = ProcessTable.status(of: pid) else { continue }
            let state: State =
                switch process.state {
                case "T", "t": .stopped
                case "Z", "X": .exiting
                default: .running
                }
            return LockHolder(pid: pid, command: process.command, state: state)
        }
        return nil
    }

    /// Whether `listed` (`maj:min:inode`, the numbers in hex, hex, decimal; zero-padded to two
    /// digits) names `file`.
    private static func sameFile(_ listed: Substring, _ file: String) -> Bool {
        let parts = listed.split(separator: ":")
        guard parts.count == 3, let major = UInt64(parts[0], radix: 16), let minor = UInt64(parts[1], radix: 16) else { return false }
        return "\(String(major, radix: 16)):\(String(minor, radix: 16)):\(parts[2])" == file
    }
}
