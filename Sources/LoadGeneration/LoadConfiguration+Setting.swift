import KeychainStorage

extension LoadConfiguration {
    /// A setting of a run, as messages name it: by its property in the library, by its option in
    /// a front end that words it its own way (``FrontEndWording``).
    public enum Setting: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case apps, workload, mix, itemsPerApp, valueSize, duration, operations, warmup, team, group
        case allowExistingData, prefillAccounts, rate

        /// The front end's name of the setting, or its property's.
        public var description: String {
            FrontEndWording.words(for: self, neutral: rawValue)
        }
    }
}
