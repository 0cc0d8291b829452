import ArgumentParser
import Device
import Dispatch
import Foundation
import SharedKeychain

struct WatchCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print the items of an access group as they are created, changed and deleted; never their data.",
        discussion: """
            Subscribes to the Secret Service and prints one line per event as any app \
            (any process sharing the keyring) makes it: the time it was seen (ISO 8601, \
            UTC, with milliseconds), created/changed/deleted, the access group, the \
            account, the service and the bundle ID of the app that added the item, as \
            the emulator recorded it (a device keeps no such record). With --json each \
            event is one JSON object per line (NDJSON) with the keys time, kind, group, \
            account, service and addedBy. The item's data is never read into an event, \
            so it is never shown. addedBy is the app that added the item, not the one \
            that changed or deleted it: the Secret Service does not say who did.

            Watching needs the entitlement reading needs: a group the app is not \
            entitled to is errSecMissingEntitlement (-34018, exit 13). Without --group \
            every group the app may use is watched. A wiped group is reported item by \
            item, each as deleted.

            Once subscribed it writes one line to standard error, such as `watching \
            ABCDE12345.com.microsoft.adalcache (3 items); Ctrl-C to stop`: scripts wait \
            for that line before acting. It runs until --count events were printed, \
            --for seconds passed, or SIGINT/SIGTERM (exit status 0 in every case).

            With --protected-data the device's protected-data notifications are printed \
            too, as the app would observe them: protectedDataWillBecomeUnavailable when \
            the device locks (`device lock`, `device reboot` of an unlocked device) and \
            protectedDataDidBecomeAvailable when it unlocks, from any process. A text line \
            is the time, the notification's name and the lock state it left; a JSON line \
            has the keys time, kind (the name), locked and unlockedSinceBoot. They count \
            towards --count.
            """
    )

    @OptionGroup(title: "The app") var app: AppOptions

    @Option(help: ArgumentHelp("Only this access group. Default: all the app's groups.", valueName: "group"))
    var group: String?

    @Flag(name: .customLong("protected-data"), help: "Also print the device's protectedDataWillBecomeUnavailable and protectedDataDidBecomeAvailable notifications.")
    var protectedData = false

    @Option(help: ArgumentHelp("Exit after printing this many events.", valueName: "n"))
    var count: Int?

    @Option(name: .customLong("for"), parsing: .unconditional, help: ArgumentHelp("Exit after this long: 500ms, 30s, 5m; a bare number is seconds.", valueName: "duration"))
    var length: WrittenDuration?

    /// `--for` in seconds.
    private var duration: Double? { length?.seconds }

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func validate() throws {
        if let count, count <= 0 { throw ValidationError("--count must be a positive number of events") }
        if let duration, !(duration > 0 && duration <= 31_536_000) {
            throw ValidationError("--for must be more than 0 and at most a year (31536000 s); got \(duration) s")
        }
    }

    func execute() throws {
        let keychain = try app.keychain(global)
        let watch = try keychain.watch(group: group)
        defer { watch.cancel() }
        let deviceWatch = protectedData ? global.device.protectedDataEvents() : nil
        defer { deviceWatch?.cancel() }

        // SIGINT and SIGTERM stop the watch; the events seen so far are printed, then exit 0.
        let signals = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { watch.cancel(); deviceWatch?.cancel() }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }
        if let duration {
            DispatchQueue.global().asyncAfter(deadline: .now() + duration) { watch.cancel(); deviceWatch?.cancel() }
        }

        Output.standardError.write(readyLine(watch) + "\n")
        let printer = EventPrinter(json: global.json)
        let finished = DispatchSemaphore(value: 0)
        let lines = WatchedLines(items: watch, device: deviceWatch)
        Task { [count] in
            var printed = 0
            for await line in lines.stream {
                // A reader that went away (`| head -1`) ends the watch.
                guard printer.print(line) else { break }
                printed += 1
                if let count, printed >= count { break }
            }
            finished.signal()
        }
        finished.wait()
        lines.cancel()
    }

    /// `watching G (3 items); stops after 5 events; Ctrl-C to stop`, on standard error.
    private func readyLine(_ watch: ItemWatch) -> String {
        let items = watch.initialItemCount
        var line = "watching \(DisplayText(watch.groups.joined(separator: ", "))) (\(items.counted("item")))"
        var limits: [String] = []
        if let count { limits.append("\(count.counted("event"))") }
        if let duration { limits.append("\(duration.formatted()) s") }
        if !limits.isEmpty { line += "; stops after \(limits.joined(separator: " or "))" }
        return line + "; Ctrl-C to stop"
    }
}

/// Writes events as text lines or NDJSON, one line each, unbuffered so a reader sees every
/// event as it happens.
private struct EventPrinter: Sendable {
    let json: Bool

    private static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// Writes one line; false when standard output is gone.
    func print(_ watched: WatchedLine) -> Bool {
        let line: String
        switch watched {
        case .item(let event):
            let time = event.time.formatted(Self.timeFormat)
            if json {
                line = Output.json(EventJSON(event, time: time), pretty: false)
            } else {
                let shown = [event.group, AttributeBytes.shown(event.account), AttributeBytes.shown(event.service), event.addedBy ?? "-"]
                line = ([time, event.kind.rawValue] + shown.map { DisplayText($0).description }).joined(separator: "  ")
            }
        case .protectedData(let notification):
            let time = notification.time.formatted(Self.timeFormat)
            let state = notification.state
            if json {
                line = Output.json(ProtectedDataEventJSON(time: time, kind: notification.event.rawValue, locked: state.locked, unlockedSinceBoot: state.unlockedSinceBoot), pretty: false)
            } else {
                let lock = "device \(state.locked ? "locked" : "unlocked"), \(state.unlockedSinceBoot ? "unlocked since boot" : "not unlocked since boot")"
                line = [time, notification.event.rawValue, lock].joined(separator: "  ")
            }
        }
        do {
            try FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8))
            return true
        } catch {
            return false
        }
    }
}

/// One event in `--json` output; `addedBy` (the emulator's provenance) is null when unknown,
/// never absent.
private struct EventJSON: Encodable {
    let time: String
    let kind: String
    let group: String
    let account: String
    let service: String
    let addedBy: String?

    init(_ event: ItemEvent, time: String) {
        self.time = time
        kind = event.kind.rawValue
        group = event.group
        account = event.account
        service = event.service
        addedBy = event.addedBy
    }

    private enum CodingKeys: String, CodingKey {
        case time, kind, group, account, service, addedBy
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(time, forKey: .time)
        try container.encode(kind, forKey: .kind)
        try container.encode(group, forKey: .group)
        try container.encode(account, forKey: .account)
        try container.encode(service, forKey: .service)
        try container.encode(addedBy, forKey: .addedBy)
    }
}

/// One protected-data notification in `--json` output.
private struct ProtectedDataEventJSON: Encodable {
    let time: String
    let kind: String
    let locked: Bool
    let unlockedSinceBoot: Bool
}

/// What `watch` prints: an item's event or a protected-data notification.
enum WatchedLine: Sendable {
    case item(ItemEvent)
    case protectedData(ProtectedDataNotification)
}

/// The item events and (with `--protected-data`) the device's notifications, in one stream in
/// the order they arrive.
private final class WatchedLines: Sendable {
    let stream: AsyncStream<WatchedLine>
    private let feeders: [Task<Void, Never>]

    init(items: ItemWatch, device: ProtectedDataWatch?) {
        let (stream, continuation) = AsyncStream.makeStream(of: WatchedLine.self)
        self.stream = stream
        let itemFeeder = Task {
            for await event in items.events { continuation.yield(.item(event)) }
            continuation.finish()
        }
        var feeders = [itemFeeder]
        if let device {
            feeders.append(Task {
                for await notification in device.events { continuation.yield(.protectedData(notification)) }
            })
        }
        self.feeders = feeders
    }

    /// Stops both feeders.
    func cancel() { feeders.forEach { $0.cancel() } }
}
