import Foundation
import Mitigations
import Simulation
import Synchronization
import Testing
@testable import LoadGeneration

/// A worker process runs exactly its parent's configuration: it is sent whole, as JSON over the
/// workers' line channel, not re-declared as flags (three fields once came back as defaults).
@Suite("Load worker configuration")
struct WorkerConfigurationTests {
    @Test(arguments: [true, false])
    func aWorkerReceivesEveryFieldOfTheParentsConfigurationAndPolicy(namedGroup: Bool) throws {
        var sent = LoadConfiguration(
            apps: 3, workload: .token, mix: try OperationMix(parsing: "signin=30,acquire=50,wipe=20"), itemsPerApp: 7, valueSize: 99,
            duration: 2.75, operations: 1234, warmup: 0.125, seed: .max - 5, team: "WORKCONF01", prefillAccounts: 11, rate: 321.5,
            group: namedGroup ? "WORKCONF01.com.contoso.shared" : nil, allowExistingData: namedGroup)
        sent.groupIsRunScoped = !namedGroup
        let policy = MitigationPolicy(groups: [sent.group: .all(privileged: ["com.loadtest.app1"])])

        // `cat` hands each line back: what arrives is what a worker's end of the channel decodes.
        let received = Mutex<[WorkerProtocol.Request]>([])
        let closed = DispatchSemaphore(value: 0)
        let channel = try LineChannel<WorkerProtocol.Request, WorkerProtocol.Request>(
            spawning: URL(fileURLWithPath: "/bin/cat"), arguments: [],
            onMessage: { request in received.withLock { $0.append(request) } }, onClose: { closed.signal() })
        channel.send(.run(app: 2, configuration: sent, policy: policy))
        channel.closeInput()
        closed.wait()
        channel.terminate()

        let requests = received.withLock { $0 }
        #expect(requests.count == 1)
        guard case .run(let app, let configuration, let receivedPolicy)? = requests.first else {
            Issue.record("no run request arrived: \(requests)")
            return
        }
        #expect(app == 2)
        #expect(configuration == sent)
        #expect(receivedPolicy == policy)
        // The fields the flags used to drop, one by one.
        #expect(configuration.prefillAccounts == 11)
        #expect(configuration.allowExistingData == namedGroup)
        #expect(configuration.groupIsRunScoped == !namedGroup)
    }
}
