/// A token's secret value. Printing, interpolating or dumping it shows only a masked form; read
/// ``value`` deliberately to get the token itself.
public struct TokenSecret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The secret itself. Never log it.
    public let value: String

    /// - Parameter value: the secret.
    public init(_ value: String) {
        self.value = value
    }

    /// A prefix of at most 12 characters (and at most a third of the secret), then the length:
    /// enough to tell tokens apart, never enough to use one.
    public var masked: String { Self.mask(value) }

    /// The masked form.
    public var description: String { masked }
    /// The masked form, labelled.
    public var debugDescription: String { "TokenSecret(\(masked))" }
    /// Keeps `dump` and debuggers to the masked form.
    public var customMirror: Mirror { Mirror(self, children: ["masked": masked]) }

    /// Masks any secret string the same way.
    public static func mask(_ secret: String) -> String {
        let visible = min(12, secret.count / 3)
        return "\(secret.prefix(visible))…(\(secret.count) chars)"
    }
}
