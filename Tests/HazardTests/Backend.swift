import KeychainTestSupport

typealias Backend = TestBackend
