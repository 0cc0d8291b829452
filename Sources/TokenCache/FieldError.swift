/// Why one field of a cache value is unusable; the caller adds which item it belongs to.
struct FieldError: Error, Sendable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
