/// The current signing key and the one it replaced; both are published in the JWKS.
struct SigningKeySet: Sendable {
    var current: SigningKey
    var previous: SigningKey?

    /// The JWKS document (`{"keys": [...]}`), current key first.
    var jwks: JSONOutput {
        .object(["keys": .array([self.current.jwk] + (self.previous.map { [$0.jwk] } ?? []))])
    }

    /// Replaces the current key, keeping the old one as previous.
    mutating func rotate(to key: SigningKey) {
        self.previous = self.current
        self.current = key
    }
}
