import Foundation
import SharedKeychain

/// The parts of an app's Info.plist that sign-in depends on: the URL schemes it registers
/// (`CFBundleURLTypes > CFBundleURLSchemes`, where a custom-scheme redirect URI must be listed)
/// and the schemes it may query (`LSApplicationQueriesSchemes`, where the broker's `msauth` and
/// `msauthv2` must be listed for `canOpenURL:` to see the broker), and the Intune App SDK's
/// settings (`IntuneMAMSettings`) when the app has that SDK.
public struct InfoPlist: Sendable, Hashable {
    /// The plist keys read.
    public static let bundleIdentifierKey = "CFBundleIdentifier"
    public static let urlTypesKey = "CFBundleURLTypes"
    public static let urlSchemesKey = "CFBundleURLSchemes"
    public static let queriesSchemesKey = "LSApplicationQueriesSchemes"
    /// The keys Apple defines for a `CFBundleURLTypes` entry; an inline entry may have any of
    /// them (the seeds' own example has `CFBundleTypeRole` and `CFBundleURLName`), and only the
    /// schemes are read.
    public static let urlTypeKeys = ["CFBundleTypeRole", "CFBundleURLIconFile", "CFBundleURLName", urlSchemesKey]

    /// `CFBundleIdentifier`, when the plist has one.
    public let bundleIdentifier: String?
    /// Every `CFBundleURLSchemes` entry of every `CFBundleURLTypes` entry, in order.
    public let urlSchemes: [String]
    /// `LSApplicationQueriesSchemes`, in order.
    public let queriesSchemes: [String]
    /// `IntuneMAMSettings`, when the plist has the dictionary: the app has the Intune App SDK.
    public let intune: IntuneSettings?

    /// Keys given in code; `urlSchemes` are those of all `CFBundleURLTypes` entries together.
    public init(bundleIdentifier: String? = nil, urlSchemes: [String] = [], queriesSchemes: [String] = [], intune: IntuneSettings? = nil) {
        self.bundleIdentifier = bundleIdentifier
        self.urlSchemes = urlSchemes
        self.queriesSchemes = queriesSchemes
        self.intune = intune
    }

    /// Reads an XML or binary Info.plist; other keys are ignored, as a real one has many.
    public init(contentsOf url: URL) throws(SuiteManifestError) {
        try self.init(contentsOf: url, app: nil)
    }

    /// Parses property-list bytes; `source` names them in errors.
    public init(propertyList data: Data, source: String) throws(SuiteManifestError) {
        try self.init(propertyList: data, at: ManifestLocation(file: source))
    }

    /// Reads the Info.plist of app `app`, which errors name.
    init(contentsOf url: URL, app: String?) throws(SuiteManifestError) {
        let location = ManifestLocation(file: url.path, app: app)
        let data: Data
        do { data = try InputValidation.readDocument(at: url, field: "Info.plist") } catch {
            throw .unreadable(location, reason: "Info.plist: \(error.message)")
        }
        try self.init(propertyList: data, at: location)
    }

    private init(propertyList data: Data, at location: ManifestLocation) throws(SuiteManifestError) {
        let root: DocumentNode
        do { root = try DocumentNode.parsePropertyList(data) } catch {
            throw .malformed(location, reason: "Info.plist: \(error.reason)")
        }
        try self.init(DocumentField(root, at: location), strict: false)
    }

    /// Reads the keys from a plist root or an inline manifest mapping. Inline mappings are
    /// `strict`: a key other than the four read here is a typo, not a real Info.plist's noise.
    init(_ field: DocumentField, strict: Bool) throws(SuiteManifestError) {
        let keys = [Self.bundleIdentifierKey, Self.urlTypesKey, Self.queriesSchemesKey, IntuneSettings.settingsKey]
        let root = try field.dictionary(known: strict ? keys : nil)
        bundleIdentifier = try root.optional(Self.bundleIdentifierKey)?.string()
        var schemes: [String] = []
        for type in try root.optional(Self.urlTypesKey)?.list() ?? [] {
            let entry = try type.dictionary(known: strict ? Self.urlTypeKeys : nil)
            schemes += try entry.optional(Self.urlSchemesKey)?.stringList() ?? []
        }
        urlSchemes = schemes
        queriesSchemes = try root.optional(Self.queriesSchemesKey)?.stringList() ?? []
        if let settings = root.optional(IntuneSettings.settingsKey) { intune = try IntuneSettings(settings) } else { intune = nil }
    }

    /// The build variable Xcode's templates use for the bundle ID, as in `msauth.$(PRODUCT_BUNDLE_IDENTIFIER)`.
    public static let bundleIDVariables = ["$(PRODUCT_BUNDLE_IDENTIFIER)", "${PRODUCT_BUNDLE_IDENTIFIER}"]

    /// The plist as the built app has it: the bundle-ID build variable replaced by `bundleID`.
    public func resolvingBuildVariables(bundleID: String) -> InfoPlist {
        func resolve(_ text: String) -> String {
            Self.bundleIDVariables.reduce(text) { $0.replacingOccurrences(of: $1, with: bundleID) }
        }
        return InfoPlist(bundleIdentifier: bundleIdentifier.map(resolve),
                         urlSchemes: urlSchemes.map(resolve), queriesSchemes: queriesSchemes.map(resolve), intune: intune)
    }

    /// Whether `scheme` is registered; URL schemes compare without regard to case.
    public func registers(scheme: String) -> Bool {
        urlSchemes.contains { $0.lowercased() == scheme.lowercased() }
    }

    /// Whether `scheme` may be queried with `canOpenURL:`.
    public func queries(scheme: String) -> Bool {
        queriesSchemes.contains { $0.lowercased() == scheme.lowercased() }
    }

    /// A property list holding these keys, one URL type per scheme, as Xcode writes them.
    public func propertyListData(format: PropertyListSerialization.PropertyListFormat = .xml) throws(SuiteManifestError) -> Data {
        var root: [String: Any] = [:]
        if let bundleIdentifier { root[Self.bundleIdentifierKey] = bundleIdentifier }
        if !urlSchemes.isEmpty {
            root[Self.urlTypesKey] = urlSchemes.map { scheme -> [String: Any] in
                ["CFBundleTypeRole": "Editor", Self.urlSchemesKey: [scheme]]
            }
        }
        if !queriesSchemes.isEmpty { root[Self.queriesSchemesKey] = queriesSchemes }
        if let intune { root[IntuneSettings.settingsKey] = intune.propertyList }
        do { return try PropertyListSerialization.data(fromPropertyList: root, format: format, options: 0) } catch {
            throw .malformed(ManifestLocation(file: "(in memory)"), reason: (error as NSError).localizedDescription)
        }
    }
}
