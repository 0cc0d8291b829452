import Foundation

/// The data a simulated app writes: who owns the key, which key, which version, padded to the
/// configured size. The consistency check reads it back.
struct ItemValue: Equatable {
    var app: Int
    var key: Int
    var version: Int

    func encoded(size: Int) -> Data {
        var bytes = Array("\(app)|\(key)|\(version)|".utf8)
        if bytes.count < size { bytes += Array(repeating: UInt8(ascii: "."), count: size - bytes.count) }
        return Data(bytes)
    }

    init(app: Int, key: Int, version: Int) {
        self.app = app
        self.key = key
        self.version = version
    }

    init?(decoding data: Data) {
        let fields = data.prefix(64).split(separator: UInt8(ascii: "|"), maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count >= 3,
              let app = Int(String(decoding: fields[0], as: UTF8.self)),
              let key = Int(String(decoding: fields[1], as: UTF8.self)),
              let version = Int(String(decoding: fields[2], as: UTF8.self))
        else { return nil }
        self.init(app: app, key: key, version: version)
    }
}
