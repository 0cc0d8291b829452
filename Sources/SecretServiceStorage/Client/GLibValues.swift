import CLibsecret

/// Conversions between Swift values and the GLib containers libsecret takes and returns. Each
/// helper owns what it allocates, so callers never free by hand.
enum GLibValues {
    /// Runs `body` with a `GHashTable` of strings to strings (what libsecret calls attributes).
    static func withStringTable<T>(_ values: [String: String], _ body: (OpaquePointer) throws(GLibFailure) -> T) throws(GLibFailure) -> T {
        let table = makeStringTable(values)
        defer { g_hash_table_unref(table) }
        return try body(table)
    }

    /// A new `GHashTable` owning copies of `values`; release it with `g_hash_table_unref`.
    static func makeStringTable(_ values: [String: String]) -> OpaquePointer {
        guard let table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free) else {
            preconditionFailure("g_hash_table_new_full returned NULL")
        }
        for (key, value) in values {
            g_hash_table_insert(table, g_strdup(key), g_strdup(value))
        }
        return table
    }

    /// The strings of a NULL-terminated `gchar**`, which is then freed.
    static func takeStrings(_ strings: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?) -> [String] {
        guard let strings else { return [] }
        defer { g_strfreev(strings) }
        var result: [String] = []
        var index = 0
        while let string = strings[index] {
            result.append(String(cString: string))
            index += 1
        }
        return result
    }

    /// Runs `body` with a NULL-terminated `const gchar**` holding copies of `strings`.
    static func withStringArray<T>(
        _ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<gchar>?>) throws(GLibFailure) -> T
    ) throws(GLibFailure) -> T {
        let array = UnsafeMutablePointer<UnsafePointer<gchar>?>.allocate(capacity: strings.count + 1)
        var copies: [UnsafeMutablePointer<gchar>?] = []
        copies.reserveCapacity(strings.count)
        for (index, string) in strings.enumerated() {
            let copy = g_strdup(string)
            copies.append(copy)
            array[index] = UnsafePointer(copy)
        }
        array[strings.count] = nil
        defer {
            for copy in copies { g_free(copy) }
            array.deallocate()
        }
        return try body(array)
    }

    /// A hex SHA-256 of `string`'s UTF-8 bytes (GLib's GChecksum: no extra dependency).
    static func sha256Hex(_ string: String) -> String {
        var bytes = Array(string.utf8)
        let hex = bytes.withUnsafeMutableBufferPointer { buffer in
            g_compute_checksum_for_data(G_CHECKSUM_SHA256, buffer.baseAddress, gsize(buffer.count))
        }
        guard let hex else { return "" }
        defer { g_free(hex) }
        return String(cString: hex)
    }
}

/// Building and reading `GVariant`s without GLib's variadic constructors, which Swift cannot call.
enum Variant {
    /// A floating `s`.
    static func string(_ value: String) -> OpaquePointer {
        guard let variant = g_variant_new_string(value) else { preconditionFailure("g_variant_new_string returned NULL") }
        return variant
    }

    /// A floating `o`; `path` must be a valid object path.
    static func objectPath(_ path: String) -> OpaquePointer {
        guard let variant = g_variant_new_object_path(path) else {
            preconditionFailure("g_variant_new_object_path returned NULL")
        }
        return variant
    }

    /// A floating tuple of `children` (floating children are consumed).
    static func tuple(_ children: [OpaquePointer]) -> OpaquePointer {
        var items: [OpaquePointer?] = children
        let variant = items.withUnsafeMutableBufferPointer { buffer in
            g_variant_new_tuple(buffer.baseAddress, gsize(buffer.count))
        }
        guard let variant else { preconditionFailure("g_variant_new_tuple returned NULL") }
        return variant
    }

    /// A floating `a{sv}` (floating values are consumed).
    static func vardict(_ entries: [(String, OpaquePointer)]) -> OpaquePointer {
        dictionary(type: "a{sv}", entries.map { key, value in
            guard let boxed = g_variant_new_variant(value) else { preconditionFailure("g_variant_new_variant returned NULL") }
            return (key, boxed)
        })
    }

    /// A floating `a{ss}`.
    static func stringDictionary(_ entries: [String: String]) -> OpaquePointer {
        dictionary(type: "a{ss}", entries.sorted { $0.key < $1.key }.map { ($0.key, string($0.value)) })
    }

    private static func dictionary(type: String, _ entries: [(String, OpaquePointer)]) -> OpaquePointer {
        let variantType = g_variant_type_new(type)
        defer { g_variant_type_free(variantType) }
        guard let builder = g_variant_builder_new(variantType) else {
            preconditionFailure("g_variant_builder_new returned NULL")
        }
        defer { g_variant_builder_unref(builder) }
        for (key, value) in entries {
            g_variant_builder_add_value(builder, g_variant_new_dict_entry(string(key), value))
        }
        guard let variant = g_variant_builder_end(builder) else { preconditionFailure("g_variant_builder_end returned NULL") }
        return variant
    }

    /// The string (or object path) child at `index` of a tuple reply, or nil if it has another type.
    static func stringChild(_ tuple: OpaquePointer, at index: Int) -> String? {
        guard index < g_variant_n_children(tuple), let child = g_variant_get_child_value(tuple, gsize(index)) else {
            return nil
        }
        defer { g_variant_unref(child) }
        return string(of: child)
    }

    /// A string, object path, or a variant boxing one of those.
    static func string(of value: OpaquePointer) -> String? {
        if isType(value, "v") {
            guard let inner = g_variant_get_variant(value) else { return nil }
            defer { g_variant_unref(inner) }
            return string(of: inner)
        }
        guard isType(value, "s") || isType(value, "o"),
            let text = g_variant_get_string(value, nil)
        else { return nil }
        return String(cString: text)
    }

    /// A boolean, or a variant boxing one.
    static func bool(of value: OpaquePointer) -> Bool? {
        if isType(value, "v") {
            guard let inner = g_variant_get_variant(value) else { return nil }
            defer { g_variant_unref(inner) }
            return bool(of: inner)
        }
        guard isType(value, "b") else { return nil }
        return g_variant_get_boolean(value) != 0
    }

    /// A `u`, or a variant boxing one.
    static func uint32(of value: OpaquePointer) -> UInt32? {
        if isType(value, "v") {
            guard let inner = g_variant_get_variant(value) else { return nil }
            defer { g_variant_unref(inner) }
            return uint32(of: inner)
        }
        guard isType(value, "u") else { return nil }
        return g_variant_get_uint32(value)
    }

    /// A `t`, or a variant boxing one.
    static func uint64(of value: OpaquePointer) -> UInt64? {
        if isType(value, "v") {
            guard let inner = g_variant_get_variant(value) else { return nil }
            defer { g_variant_unref(inner) }
            return uint64(of: inner)
        }
        guard isType(value, "t") else { return nil }
        return UInt64(g_variant_get_uint64(value))
    }

    /// The value under `key` in an `a{sv}`, unboxed; release it with `g_variant_unref`.
    static func lookup(_ dictionary: OpaquePointer, _ key: String) -> OpaquePointer? {
        g_variant_lookup_value(dictionary, key, nil)
    }

    /// The object paths in an `ao` (or a variant boxing one).
    static func objectPaths(of value: OpaquePointer) -> [String] {
        if isType(value, "v") {
            guard let inner = g_variant_get_variant(value) else { return [] }
            defer { g_variant_unref(inner) }
            return objectPaths(of: inner)
        }
        var paths: [String] = []
        let count = g_variant_n_children(value)
        var index: gsize = 0
        while index < count {
            if let child = g_variant_get_child_value(value, index) {
                if let path = string(of: child) { paths.append(path) }
                g_variant_unref(child)
            }
            index += 1
        }
        return paths
    }

    /// The entries of an `a{ss}` (or a variant boxing one); empty for any other type.
    static func stringDictionary(of value: OpaquePointer) -> [String: String] {
        if isType(value, "v") {
            guard let inner = g_variant_get_variant(value) else { return [:] }
            defer { g_variant_unref(inner) }
            return stringDictionary(of: inner)
        }
        guard isType(value, "a{ss}") else { return [:] }
        var entries: [String: String] = [:]
        let count = g_variant_n_children(value)
        var index: gsize = 0
        while index < count {
            defer { index += 1 }
            guard let entry = g_variant_get_child_value(value, index) else { continue }
            defer { g_variant_unref(entry) }
            if let key = stringChild(entry, at: 0), let text = stringChild(entry, at: 1) {
                entries[key] = text
            }
        }
        return entries
    }

    /// The first child of a reply tuple, or nil; release it with `g_variant_unref`.
    static func firstChild(_ tuple: OpaquePointer) -> OpaquePointer? {
        guard g_variant_n_children(tuple) > 0 else { return nil }
        return g_variant_get_child_value(tuple, 0)
    }

    /// Whether `value`'s type is exactly `type` (compared as type strings: no GVariantType to free).
    private static func isType(_ value: OpaquePointer, _ type: String) -> Bool {
        guard let actual = g_variant_get_type_string(value) else { return false }
        return String(cString: actual) == type
    }
}
