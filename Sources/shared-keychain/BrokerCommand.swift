import ArgumentParser
import Device
import Foundation
import SuiteManifest
import TokenCache

/// The broker as its own process: `token acquire` on the device launches it with the caller's
/// bundle ID (as iOS reports the calling app) and the request on standard input; it answers
/// with the response URL as JSON on standard output.
struct BrokerServeCommand: ReportingCommand {
    static let configuration = CommandConfiguration(commandName: "broker-serve", shouldDisplay: false)

    @Option(help: "The calling app's bundle ID, as the device reports it.")
    var caller: String

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func execute() throws {
        guard let broker = try global.device.app(Device.brokerBundleID) else {
            throw UsageFailure(message: "the broker is not installed on this device (`shared-keychain device install-broker`)")
        }
        let request = readLine(strippingNewline: true) ?? ""
        let keychain = try global.session().keychain(for: ResolvedApp(installed: broker))
        let cache = try TokenCache(keychain: keychain, configuration: broker.settings.tokenCacheConfiguration())
        Output.printJSON(try BrokerService(cache: cache).handle(request, caller: caller))
    }
}

/// The broker process's error, as `--json` writes it on standard error.
private struct BrokerFailure: Decodable {
    struct Detail: Decodable { let message: String }
    let error: Detail
}

/// The broker as `token acquire` reaches it: a `broker-serve` process, told the caller's bundle
/// ID as the device would tell it.
struct BrokerProcess: BrokerChannel {
    /// The calling app's bundle ID.
    let caller: String
    let redirectURI: String
    let global: GlobalOptions

    /// Sends `request` to a broker process; returns its answer, or the broker's refusal.
    func send(_ request: BrokerRequest) throws -> BrokerAnswer {
        let process = Process()
        process.executableURL = GlobalOptions.executable
        process.arguments = ["broker-serve", "--caller", caller, "--json"] + global.workerArguments
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data((request.url + "\n").utf8))
        try input.fileHandleForWriting.close()
        let answer = output.fileHandleForReading.readDataToEndOfFile()
        let failure = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let body = try? JSONDecoder().decode(BrokerFailure.self, from: failure)
            throw TokenCacheError.broker(body?.error.message ?? "the broker exited with status \(process.terminationStatus)")
        }
        guard let decoded = try? JSONDecoder().decode(BrokerAnswer.self, from: answer) else {
            throw TokenCacheError.broker("the broker's answer is not readable")
        }
        return decoded
    }
}
