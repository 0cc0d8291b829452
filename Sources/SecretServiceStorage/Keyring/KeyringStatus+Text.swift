import KeychainStorage

/// The private keyring's status for people: whether it runs, its daemon's pid, its bus and state
/// directory, and what to do when it does not answer.
extension KeyringStatus: TextReport {
    public var text: String {
        switch state {
        case .stopped:
            return "private keyring: stopped (state in \(stateDirectory))\n"
        case .notResponding:
            return """
                private keyring: not responding (gnome-keyring-daemon, pid \(pid.map(String.init) ?? "?"), did not answer within 2 s: stopped or hung)
                  bus:   \(bus)
                  state: \(stateDirectory)
                  fix:   resume it (kill -CONT \(pid.map(String.init) ?? "PID")), or \(Remedy.restartHungKeyring)

                """
        case .running:
            return """
                private keyring: running
                  pid:   \(pid.map(String.init) ?? "?")
                  bus:   \(bus)
                  state: \(stateDirectory)

                """
        }
    }
}
