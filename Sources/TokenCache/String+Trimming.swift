extension String {
    /// The string without leading and trailing white space (newlines included), worked out on
    /// its own characters. Foundation's `trimmingCharacters(in:)` goes through NSString and
    /// UTF-16 on Linux: on every key and field of every item read, that was half of a cache
    /// read's time.
    var trimmingWhitespace: String {
        guard first?.isWhitespace == true || last?.isWhitespace == true else { return self }
        guard let start = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else {
            return ""
        }
        return String(self[start...last])
    }
}
