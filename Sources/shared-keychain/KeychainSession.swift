import Device
import Foundation
import KeychainStorage
import SecretServiceStorage
import SharedKeychain

/// Opens the storage `--keyring` names, starting the private keyring when needed.
struct KeychainSession {
    let store: any ItemStore

    init(_ global: GlobalOptions) throws {
        store = try Device(stateDirectory: global.stateDirectoryURL).openStore(global.keyring, timeout: global.timeout, logger: global.logger)
    }

    static func privateKeyring(_ global: GlobalOptions) -> PrivateKeyring {
        Device(stateDirectory: global.stateDirectoryURL).privateKeyring(logger: global.logger)
    }

    func keychain(for app: AppIdentity) -> Keychain {
        Keychain(app: app, store: store)
    }
}
