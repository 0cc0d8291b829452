import ArgumentParser

struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Sign in, acquire, list, remove and wipe MSAL tokens in the shared group, as one app.",
        discussion: """
            Tokens are laid out as Microsoft's iOS SDKs keep them in the keychain sharing group
            (<team>.com.microsoft.adalcache by default), minted by an emulated issuer: no
            network. Token values are masked unless --show-secrets.
            """,
        subcommands: [TokenSignInCommand.self, TokenAcquireCommand.self, TokenAccountsCommand.self,
                      TokenRemoveCommand.self, TokenWipeCommand.self, TokenWipeInfoCommand.self]
    )
}
