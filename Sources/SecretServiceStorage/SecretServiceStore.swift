// Placeholder until the Secret Service backend lands.
enum Placeholder {}
