/// What the cache remembers about one client: whether the server put it in a family.
struct AppMetadata: Sendable, Hashable {
    var clientID: String
    var environment: String
    /// As written, empty string included; ``family`` is the usable form.
    var familyID: String?

    init(clientID: String, environment: String, familyID: String?) {
        self.clientID = clientID
        self.environment = environment
        self.familyID = familyID
    }

    init(object: JSONObject) throws(FieldError) {
        let fields = FieldReader(object: object)
        clientID = try fields.string("client_id")
        environment = try fields.string("environment")
        familyID = try fields.optionalString("family_id")
    }

    var family: String? { familyID.flatMap { $0.isEmpty ? nil : $0 } }

    var fields: JSONObject {
        var object: JSONObject = ["client_id": .string(clientID), "environment": .string(environment)]
        if let familyID { object["family_id"] = .string(familyID) }
        return object
    }

    var layout: ItemLayout { .appMetadata(environment: environment, clientID: clientID, familyID: familyID) }

    /// `appmetadata-<environment>-<client_id>`, lowercased.
    var exportKey: String { CacheKey.normalized("appmetadata-\(environment)-\(clientID)") }
}
