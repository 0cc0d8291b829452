import Foundation
import KeychainStorage

/// `<state>/device/protected-data.ndjson`: every protected-data event the device posted, one
/// JSON object a line, appended by whichever process changed the lock. Watchers in other
/// processes read what was appended after they subscribed, so no event is lost between two of
/// their looks (a lock and an unlock in quick succession are both seen).
struct ProtectedDataJournal: Sendable {
    let url: URL

    /// Appends `notification` as one line, in one `write(2)` to a file opened `O_APPEND`, so
    /// lines from several processes never interleave.
    func post(_ notification: ProtectedDataNotification) throws(DeviceError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var line: Data
        do { line = try encoder.encode(notification) } catch {
            throw .unreadable(path: url.path, reason: "cannot encode the protected-data event: \(error)")
        }
        line.append(0x0A)
        let opened: Int32?
        do throws(PrivateFile.Failure) {
            opened = try PrivateFile.openRegular(url.path, flags: O_WRONLY | O_APPEND | O_CREAT)
        } catch {
            throw .unreadable(path: url.path, reason: "cannot post the protected-data event: \(error.description)")
        }
        guard let descriptor = opened else { throw .unreadable(path: url.path, reason: "it vanished while being created") }
        defer { close(descriptor) }
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == line.count else {
            throw .unreadable(path: url.path, reason: "cannot post the protected-data event: \(String(cString: strerror(errno)))")
        }
    }

    /// The journal's size now: where a new watcher starts reading.
    func size() -> Int {
        var info = stat()
        return stat(url.path, &info) == 0 ? Int(info.st_size) : 0
    }

    /// The whole lines appended from `offset` on, and the offset after the last of them. A
    /// journal cut shorter than `offset` (removed, recreated) is read from its start.
    func read(from offset: Int) -> (notifications: [ProtectedDataNotification], next: Int) {
        let start = size() < offset ? 0 : offset
        guard let handle = FileHandle(forReadingAtPath: url.path) else { return ([], start) }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: UInt64(start))) != nil, let data = try? handle.readToEnd(),
              let lastNewline = data.lastIndex(of: 0x0A)
        else { return ([], start) }
        let decoder = JSONDecoder()
        // A line that is not an event (a hand edit) is skipped, never taken for one.
        let notifications = data[data.startIndex..<lastNewline].split(separator: 0x0A).compactMap {
            try? decoder.decode(ProtectedDataNotification.self, from: Data($0))
        }
        return (notifications, start + (lastNewline - data.startIndex) + 1)
    }
}

/// A subscription to a device's protected-data events: ``events`` yields each event posted
/// after the subscription, in order, until ``cancel()`` (or the consuming task's cancellation).
public final class ProtectedDataWatch: Sendable {
    /// The events, as the device posts them.
    public let events: AsyncStream<ProtectedDataNotification>
    private let poller: Task<Void, Never>

    init(journal: ProtectedDataJournal, pollInterval: Double) {
        let start = journal.size()
        let (stream, continuation) = AsyncStream.makeStream(of: ProtectedDataNotification.self)
        events = stream
        let interval = Duration.milliseconds(max(1, Int(pollInterval * 1000)))
        let task = Task.detached {
            var offset = start
            while !Task.isCancelled {
                let (notifications, next) = journal.read(from: offset)
                offset = next
                for notification in notifications { continuation.yield(notification) }
                try? await Task.sleep(for: interval)
            }
            continuation.finish()
        }
        poller = task
        continuation.onTermination = { _ in task.cancel() }
    }

    /// Stops watching: ``events`` ends.
    public func cancel() {
        poller.cancel()
    }

    deinit { cancel() }
}
