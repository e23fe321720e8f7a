/// A keyring that holds a vault's key or a ``SecretServiceStore``'s records: the Secret Service in production, a
/// dictionary in tests.
///
/// Every failure is a ``CredentialStoreError``: ``CredentialStoreError/unavailable`` when the keyring is there but
/// cannot be used now (locked, or failing), so that a caller retries later and never falls back to a new key.
package protocol KeyringBackend: Sendable {
    /// Whether the keyring can be used now.
    /// - Returns: ``KeyringAvailability/absent(_:)`` when there is no keyring to use (the source is skipped).
    /// - Throws: ``CredentialStoreError/unavailable`` when the keyring is there but locked or failing.
    func availability() throws -> KeyringAvailability

    /// The secret of the item with `attributes`, or `nil` when there is none.
    func lookup(_ attributes: [String: String]) throws -> String?

    /// Creates or replaces the item with `attributes`.
    func store(_ secret: String, label: String, attributes: [String: String]) throws

    /// The value of the attribute `name` of every item that has `attributes`, in no particular order.
    func values(of name: String, matching attributes: [String: String]) throws -> [String]

    /// Deletes the items with `attributes`; returns whether one was deleted.
    @discardableResult
    func clear(_ attributes: [String: String]) throws -> Bool
}

/// Whether a keyring can be used.
package enum KeyringAvailability: Sendable, Equatable {
    /// It can be read and written.
    case available
    /// There is none; the reason is one sentence for `tether status`, such as "libsecret is not installed".
    case absent(String)
}
