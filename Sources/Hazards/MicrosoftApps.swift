/// The simulated apps the token hazards use: a suite sharing MSAL's cache group.
enum MicrosoftApps {
    static let mail = "com.contoso.mail"
    static let calendar = "com.contoso.calendar"
    static let teams = "com.contoso.teams"
    static let authenticator = "com.microsoft.azureauthenticator"
    static let mailClient = "0a1b2c3d-1111-4111-8111-111111111111"
    static let calendarClient = "0a1b2c3d-2222-4222-8222-222222222222"
    static let teamsClient = "0a1b2c3d-4444-4444-8444-444444444444"
    static let authenticatorClient = "4813382a-8fa7-425e-ab75-3b753aab3abb"
    static let user = "alice@contoso.com"
    static let sharingGroup = "com.microsoft.adalcache"
}
