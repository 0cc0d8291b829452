/// Checks what decoding cannot: that every app is in the suite, that `delay` is used only
/// inside `concurrent`, and that `wait` and `stop` name a job that runs at that point.
struct ScenarioValidator {
    let scenario: Scenario

    func validate() throws(ScenarioError) {
        var running: [String: BackgroundJob] = [:]
        var started: Set<String> = []
        for (index, step) in scenario.steps.enumerated() {
            let number = index + 1
            for app in step.apps {
                do { _ = try scenario.suite.app(bundleID: app) } catch {
                    throw invalid(number, "\(error.description)")
                }
            }
            switch step {
            case .operation(let step):
                if step.delay != nil { throw invalid(number, "delay only applies inside concurrent") }
            case .concurrent:
                break
            case .background(let job):
                guard !started.contains(job.name) else {
                    throw invalid(number, "a job named '\(job.name)' was started before; give each job its own name")
                }
                started.insert(job.name)
                running[job.name] = job
            case .wait(.time):
                break
            case .wait(.job(let name, let runs)):
                guard let job = running[name] else { throw invalid(number, notRunning(name, started: started)) }
                if let times = job.times, let runs, runs > times {
                    throw invalid(number, "job '\(name)' runs \(times) times, so it never reaches \(runs) runs")
                }
                if job.times == nil, runs == nil {
                    throw invalid(number, "job '\(name)' runs until stopped: wait for a number of its runs ({job: \(name), runs: N})")
                }
            case .stop(let name, _):
                guard running.removeValue(forKey: name) != nil else { throw invalid(number, notRunning(name, started: started)) }
            case .advanceClock, .device:
                break
            }
        }
    }

    private func notRunning(_ name: String, started: Set<String>) -> String {
        started.contains(name)
            ? "job '\(name)' was stopped before this step"
            : "no job named '\(name)' is started before this step (start it with background: \(name))"
    }

    private func invalid(_ step: Int, _ reason: String) -> ScenarioError {
        .invalidStep(path: scenario.file.path, step: step, reason: reason)
    }
}
