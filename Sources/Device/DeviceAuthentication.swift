import Foundation
import KeychainStorage
import SharedKeychain
import Synchronization

/// What the device answers when an item's access control asks the user (presence, biometry,
/// passcode), `<state>/device/authentication.json`: `allow`, `deny` or `cancel`, as if the user
/// authenticated, failed, or canceled the prompt. It belongs to the device: `device
/// authentication deny` in one process holds for every other. A device with no file allows.
extension Device {
    private var authenticationFile: URL { directory.appendingPathComponent("authentication.json") }

    private struct AuthenticationState: Codable {
        var decision: AuthenticationDecision
    }

    /// The answer now. A file that is not one is an error naming it, never taken for an answer.
    public func authenticationDecision() throws(DeviceError) -> AuthenticationDecision {
        let data: Data
        do throws(PrivateFile.Failure) {
            guard let read = try PrivateFile.read(authenticationFile, maxBytes: 64 << 10) else { return .allow }
            data = read
        } catch {
            throw .unreadable(path: authenticationFile.path, reason: "\(error.description) Remove it and run `shared-keychain device authentication allow` to write a fresh one")
        }
        do {
            return try JSONDecoder().decode(AuthenticationState.self, from: data).decision
        } catch {
            throw .unreadable(
                path: authenticationFile.path,
                reason: "it is not an authentication answer (\(InputValidation.describe(decodingError: error))); remove it and run `shared-keychain device authentication allow` to write a fresh one")
        }
    }

    /// Records `decision`, replacing the file atomically (0600, in a 0700 directory).
    public func setAuthenticationDecision(_ decision: AuthenticationDecision) throws(DeviceError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            try PrivateFile.write(try encoder.encode(AuthenticationState(decision: decision)), to: authenticationFile)
        } catch let error as PrivateFile.Failure {
            throw .unreadable(path: authenticationFile.path, reason: "cannot write the authentication answer: \(error.description)")
        } catch {
            throw .unreadable(path: authenticationFile.path, reason: "cannot encode the authentication answer: \(error)")
        }
    }

    /// What a ``Keychain`` asks when an item's access control asks the user: the file's answer,
    /// read again only when it changed (one `stat` per call). An unreadable file denies, never
    /// allows.
    public func authenticationProvider() -> AuthenticationProvider {
        let cache = AuthenticationCache(file: authenticationFile, device: self)
        return { cache.current() }
    }
}

/// The last answer read and the file's modification time, size and inode when it was read.
private final class AuthenticationCache: Sendable {
    private struct Seen {
        var stamp: [Int]
        var decision: AuthenticationDecision
    }

    let file: URL
    let device: Device
    private let seen = Mutex<Seen?>(nil)

    init(file: URL, device: Device) {
        self.file = file
        self.device = device
    }

    func current() -> AuthenticationDecision {
        var info = stat()
        guard stat(file.path, &info) == 0 else { return .allow }
        let stamp = [Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec), Int(info.st_size), Int(info.st_ino)]
        if let cached = seen.withLock({ $0 }), cached.stamp == stamp { return cached.decision }
        let decision = (try? device.authenticationDecision()) ?? .deny
        seen.withLock { $0 = Seen(stamp: stamp, decision: decision) }
        return decision
    }
}
