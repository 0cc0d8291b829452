/// One client's sign-in state for one account. `signedOut` hides the account from that client's
/// account list even while sibling apps' family tokens would show it.
enum SignInState: String, Sendable, Hashable {
    case signedIn = "signed_in"
    case signedOut = "signed_out"
}
