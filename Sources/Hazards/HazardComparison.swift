/// A hazard's unmitigated and mitigated runs side by side.
public struct HazardComparison: Sendable, Hashable, Codable {
    /// The hazard.
    public let hazard: Hazard
    /// As Keychain Services behaves.
    public let unmitigated: HazardReport
    /// With the mitigations on.
    public let mitigated: HazardReport

    /// - Parameters: see the properties.
    public init(hazard: Hazard, unmitigated: HazardReport, mitigated: HazardReport) {
        self.hazard = hazard
        self.unmitigated = unmitigated
        self.mitigated = mitigated
    }
}
