import Foundation

/// The unified cache schema writes timestamps as strings of whole epoch seconds.
enum EpochSeconds {
    static func string(_ date: Date) -> String {
        String(Int64(date.timeIntervalSince1970.rounded(.down)))
    }

    static func json(_ date: Date) -> JSONValue { .string(string(date)) }
}
