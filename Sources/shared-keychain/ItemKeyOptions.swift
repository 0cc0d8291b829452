import ArgumentParser
import Foundation
import SharedKeychain

/// An account or service as text (`--account`) or as bytes in hex (`--account-hex`), the way
/// SecItem code gives `String` or `Data`: one at most, checked by the command.
struct AttributeArgument {
    let name: String
    let text: String?
    let hex: String?

    /// The value given, or nil; a hex form that is not pairs of hex digits is errSecParam.
    func value() throws -> AttributeValue? {
        if text != nil, hex != nil { throw UsageFailure(message: "give --\(name) or --\(name)-hex, not both") }
        if let text { return .string(text) }
        guard let hex else { return nil }
        guard let bytes = Self.bytes(hex) else {
            throw UsageFailure(message: "--\(name)-hex '\(hex)' is not bytes in hex: pairs of the digits 0-9 and a-f (DEADBEEF)")
        }
        return .data(bytes)
    }

    static func bytes(_ hex: String) -> Data? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes = Data(capacity: digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension ItemClass: ExpressibleByArgument {}

/// The six internet-password options, to match or to set.
protocol InternetAttributeOptions {
    var server: String? { get }
    var internetProtocol: String? { get }
    var port: Int? { get }
    var path: String? { get }
    var securityDomain: String? { get }
    var authenticationType: String? { get }
}

extension InternetAttributeOptions {
    /// The attributes given.
    var fields: InternetFields {
        InternetFields(
            securityDomain: securityDomain, server: server, protocol: internetProtocol, authenticationType: authenticationType, port: port,
            path: path)
    }
}

/// The internet-password attributes (`--class internet`), to match (item get, update, delete,
/// list) or to give a new item (item add), by the same names.
struct InternetOptions: ParsableArguments, InternetAttributeOptions {
    @Option(help: ArgumentHelp("The server (kSecAttrServer) of an internet password.", valueName: "host"))
    var server: String?

    @Option(name: .customLong("protocol"), help: ArgumentHelp("The protocol (kSecAttrProtocol): Apple's four-character value, htps for HTTPS, http, ftp, ...", valueName: "code"))
    var internetProtocol: String?

    @Option(help: ArgumentHelp("The port (kSecAttrPort), 0 to 65535.", valueName: "port"))
    var port: Int?

    @Option(help: ArgumentHelp("The path (kSecAttrPath).", valueName: "path"))
    var path: String?

    @Option(name: .customLong("security-domain"), help: ArgumentHelp("The security domain (kSecAttrSecurityDomain), a realm.", valueName: "domain"))
    var securityDomain: String?

    @Option(name: .customLong("authentication-type"), help: ArgumentHelp("The authentication type (kSecAttrAuthenticationType): Apple's four-character value, dflt, form, http, ...", valueName: "code"))
    var authenticationType: String?

    func checkInputs() throws {
        if let port { try InputValidation.check(port, "--port", in: 0...65535) }
    }
}

/// The same attributes to set (`item update --new-server ...`): a new primary key.
struct InternetChangeOptions: ParsableArguments, InternetAttributeOptions {
    @Option(name: .customLong("new-server"), help: ArgumentHelp("Set the server of internet passwords.", valueName: "host"))
    var server: String?

    @Option(name: .customLong("new-protocol"), help: ArgumentHelp("Set the protocol of internet passwords.", valueName: "code"))
    var internetProtocol: String?

    @Option(name: .customLong("new-port"), help: ArgumentHelp("Set the port of internet passwords, 0 to 65535.", valueName: "port"))
    var port: Int?

    @Option(name: .customLong("new-path"), help: ArgumentHelp("Set the path of internet passwords.", valueName: "path"))
    var path: String?

    @Option(name: .customLong("new-security-domain"), help: ArgumentHelp("Set the security domain of internet passwords.", valueName: "domain"))
    var securityDomain: String?

    @Option(name: .customLong("new-authentication-type"), help: ArgumentHelp("Set the authentication type of internet passwords.", valueName: "code"))
    var authenticationType: String?

    func checkInputs() throws {
        if let port { try InputValidation.check(port, "--new-port", in: 0...65535) }
    }
}

extension AuthenticationUI: ExpressibleByArgument {
    public init?(argument: String) {
        switch argument {
        case "allow": self = .allow
        case "fail": self = .fail
        case "skip": self = .skip
        default: return nil
        }
    }

    public static var allValueStrings: [String] { ["allow", "fail", "skip"] }
}

/// `--access-control userPresence,biometryAny,...`: `SecAccessControlCreateFlags` by Apple's names.
struct AccessControlArgument: ExpressibleByArgument {
    static let names: [(String, AccessControlFlags)] = [
        ("userPresence", .userPresence), ("biometryAny", .biometryAny), ("biometryCurrentSet", .biometryCurrentSet),
        ("devicePasscode", .devicePasscode), ("watch", .watch), ("or", AccessControlFlags(rawValue: 1 << 14)),
        ("and", AccessControlFlags(rawValue: 1 << 15)),
    ]

    let flags: AccessControlFlags

    init?(argument: String) {
        var flags: AccessControlFlags = []
        for name in argument.split(separator: ",") {
            guard let known = Self.names.first(where: { $0.0 == name.trimmingCharacters(in: .whitespaces) }) else { return nil }
            flags.insert(known.1)
        }
        guard !flags.isEmpty else { return nil }
        self.flags = flags
    }

    /// `userPresence,or` for the flags an item keeps.
    static func names(of flags: AccessControlFlags) -> [String] {
        names.filter { flags.contains($0.1) }.map(\.0)
    }
}

/// The key-item attributes (`--class key`): to match (item get, update, delete, list) or to give
/// a new key (item add), by the same names. Apple's primary key for keys is these and the group.
struct KeyOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The key's application tag (kSecAttrApplicationTag), as text: its UTF-8 bytes.", valueName: "tag"))
    var tag: String?

    @Option(name: .customLong("tag-hex"), help: ArgumentHelp("The application tag as bytes, in hex (MSAL's broker key ends in a NUL: ...6B657900).", valueName: "hex"))
    var tagHex: String?

    @Option(name: .customLong("application-label-hex"), help: ArgumentHelp("The application label (kSecAttrApplicationLabel), bytes in hex.", valueName: "hex"))
    var applicationLabelHex: String?

    @Option(name: .customLong("key-class"), help: ArgumentHelp("The key class (kSecAttrKeyClass): public, private or symmetric.", valueName: "class"))
    var keyClass: KeyClassArgument?

    @Option(name: .customLong("key-type"), help: ArgumentHelp(
        "The key type (kSecAttrKeyType): rsa (42), ec (73), aes (2147483649, MSAL's broker key) or a number from 0 to 4294967295.", valueName: "type"))
    var keyType: KeyTypeArgument?

    @Option(name: .customLong("key-size"), help: ArgumentHelp("The key size in bits (kSecAttrKeySizeInBits).", valueName: "bits"))
    var keySize: Int?

    @Option(name: .customLong("effective-key-size"), help: ArgumentHelp("The effective key size in bits (kSecAttrEffectiveKeySize).", valueName: "bits"))
    var effectiveKeySize: Int?

    /// Range and hex checks, reported with their status by the command's `checkInputs`.
    func checkInputs() throws {
        if let keySize { try InputValidation.check(keySize, "--key-size", in: 0...Int(UInt32.max)) }
        if let effectiveKeySize { try InputValidation.check(effectiveKeySize, "--effective-key-size", in: 0...Int(UInt32.max)) }
        _ = try AttributeArgument(name: "tag", text: tag, hex: tagHex).value()
        _ = try AttributeArgument(name: "application-label", text: nil, hex: applicationLabelHex).value()
    }

    /// The attributes given (after ``checkInputs()``, which refuses bad hex).
    var fields: KeyFields {
        KeyFields(
            keyClass: keyClass?.value, applicationLabel: Self.bytes(nil, applicationLabelHex, name: "application-label"),
            applicationTag: Self.bytes(tag, tagHex, name: "tag"), keyType: keyType?.value, keySizeInBits: keySize,
            effectiveKeySize: effectiveKeySize)
    }

    private static func bytes(_ text: String?, _ hex: String?, name: String) -> Data? {
        switch (try? AttributeArgument(name: name, text: text, hex: hex).value()) ?? nil {
        case .string(let text)?: Data(text.utf8)
        case .data(let bytes)?: bytes
        case nil: nil
        }
    }
}

/// `--key-class public|private|symmetric`: `kSecAttrKeyClass` by name, kept as Apple's value.
struct KeyClassArgument: ExpressibleByArgument {
    static let names = ["public": "0", "private": "1", "symmetric": "2"]
    let value: String

    init?(argument: String) {
        guard let value = Self.names[argument] else { return nil }
        self.value = value
    }

    static var allValueStrings: [String] { ["public", "private", "symmetric"] }
}

/// `--key-type rsa|ec|aes|N`: `kSecAttrKeyType` by name or number.
struct KeyTypeArgument: ExpressibleByArgument {
    static let names: [String: UInt32] = ["rsa": 42, "ec": 73, "aes": KeyAttributes.aesKeyType]
    let value: UInt32

    init?(argument: String) {
        guard let value = Self.names[argument] ?? UInt32(argument) else { return nil }
        self.value = value
    }
}
