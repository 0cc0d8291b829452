/// The broker's answer to one request: the response URL it opens the app with, and whether it
/// had to sign the user in (it held no account for the hint).
public struct BrokerAnswer: Sendable, Hashable, Codable {
    /// The response URL, on the request's redirect URI.
    public var url: String
    /// Whether the broker prompted the user.
    public var prompted: Bool

    /// - Parameters: see the properties.
    public init(url: String, prompted: Bool) {
        self.url = url
        self.prompted = prompted
    }
}

/// How an app reaches the broker (Microsoft Authenticator): a request URL goes out for the
/// calling app, the broker's answer comes back. The command line sends it to a broker process;
/// an in-process caller hands it to a ``BrokerService``.
public protocol BrokerChannel {
    /// The redirect URI the app presents in its request.
    var redirectURI: String { get }
    /// Sends `request` to the broker on the app's behalf.
    /// - Throws: the broker's refusal, or why it could not be reached.
    func send(_ request: BrokerRequest) throws -> BrokerAnswer
}
