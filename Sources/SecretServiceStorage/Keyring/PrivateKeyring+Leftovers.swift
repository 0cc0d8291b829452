import Foundation
import KeychainStorage

/// What a start leaves running when it cannot record it in `keyring.json` (a FIFO or a
/// directory in its place, a full disk, a crash between starting a daemon and writing the
/// file): found by what only this keyring's daemons have, so `stop` ends them, and a start that
/// fails ends what it started.
extension PrivateKeyring {
    /// Refuses a `keyring.json` that is not a regular file before anything starts: the daemons
    /// started could not be recorded.
    func checkStateFile() throws(PrivateKeyringError) {
        do { try PrivateFile.checkReplaceable(stateFile) } catch {
            throw .stateDirectory(
                path: stateFile.path,
                reason: "\(error.description); nothing was started. Remove it (`rm '\(stateFile.path)'`: it only records the running daemons, no item is lost) and run the command again")
        }
    }

    /// The dbus-daemons started with this keyring's bus configuration, and the
    /// gnome-keyring-daemons started on its bus with its data directory.
    func leftoverProcesses() -> [(pid: Int32, name: String)] {
        let configuration = "--config-file=\(configFile.path)"
        let buses = ProcessTable.find(named: "dbus-daemon") { arguments, _ in arguments.contains(configuration) }
        let bus = "DBUS_SESSION_BUS_ADDRESS=\(busAddress)"
        let data = "XDG_DATA_HOME=\(dataDirectory.path)"
        let daemons = ProcessTable.find(named: "gnome-keyring-daemon") { _, environment in
            environment.contains(bus) && environment.contains(data)
        }
        return daemons.map { ($0, "gnome-keyring-daemon") } + buses.map { ($0, "dbus-daemon") }
    }

    /// Ends every process ``leftoverProcesses()`` finds (the daemon before its bus); returns how
    /// many there were.
    @discardableResult
    func stopLeftovers(only names: Set<String> = ["gnome-keyring-daemon", "dbus-daemon"]) -> Int {
        let leftovers = leftoverProcesses().filter { names.contains($0.name) }
        for process in leftovers {
            ProcessTable.terminate(process.pid, named: process.name, seconds: startTimeout)
        }
        if !leftovers.isEmpty {
            logger.debug("stopped processes no keyring.json recorded", metadata: ["pids": "\(leftovers.map(\.pid))"])
        }
        return leftovers.count
    }
}
