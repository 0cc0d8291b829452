import Device
import Foundation
import KeychainStorage
import SecretServiceStorage
import SharedKeychain

/// Opens the storage `--keyring` names, starting the private keyring when needed.
struct KeychainSession {
    let store: any ItemStore

    init(_ global: GlobalOptions) throws {
        // The device's lock protects items by class on the private keyring and in memory.
        let deviceLock = Device(stateDirectory: global.stateDirectoryURL).lockProvider()
        switch global.keyring {
        case .memory:
            store = InMemoryStore(deviceLock: deviceLock)
        case .user:
            var configuration = SecretServiceStore.Configuration(layout: .defaultCollection, timeout: global.timeout)
            configuration.logger = global.logger
            store = try SecretServiceStore(configuration: configuration)
        case .private:
            let keyring = Self.privateKeyring(global)
            try keyring.start()
            var configuration = try keyring.storeConfiguration(timeout: global.timeout, logger: global.logger)
            configuration.deviceLock = deviceLock
            store = try SecretServiceStore(configuration: configuration)
        }
    }

    static func privateKeyring(_ global: GlobalOptions) -> PrivateKeyring {
        PrivateKeyring(stateDirectory: global.stateDirectoryURL, logger: global.logger)
    }

    func keychain(for app: AppIdentity) -> Keychain {
        Keychain(app: app, store: store)
    }
}
