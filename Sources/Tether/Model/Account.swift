/// The user behind a connection: who signed in, at which provider.
///
/// `description` masks the display identifier (`j***@example.com`) and omits the subject, so an account can be
/// logged or shown in an error without exposing who it is.
public struct Account: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The provider that issued the account, such as `google` or an OIDC issuer URL.
    public var providerID: String
    /// The provider's stable identifier for the user (OIDC `sub`).
    public var subject: String
    /// What a person recognises the account by: usually an e-mail address or user name.
    public var displayIdentifier: String?

    /// Creates an account.
    /// - Parameters:
    ///   - providerID: The provider that issued the account.
    ///   - subject: The provider's stable identifier for the user (OIDC `sub`).
    ///   - displayIdentifier: An e-mail address or user name, if known.
    public init(providerID: String, subject: String, displayIdentifier: String? = nil) {
        self.providerID = providerID
        self.subject = subject
        self.displayIdentifier = displayIdentifier
    }

    /// An account the provider did not name: the sign-in gave neither an ID token nor usable userinfo. The
    /// connection works all the same; ``isUnknown`` is `true` and ``description`` says "unknown account".
    /// - Parameter providerID: The provider the tokens came from.
    /// - Returns: An account with an empty subject and no display identifier.
    public static func unknown(providerID: String) -> Account {
        Account(providerID: providerID, subject: "")
    }

    /// Whether the provider did not say who signed in (see ``unknown(providerID:)``).
    public var isUnknown: Bool { subject.isEmpty }

    /// The display identifier with most of it masked, such as `j***@example.com`.
    public var maskedDisplayIdentifier: String? {
        displayIdentifier.map(Self.mask)
    }

    /// `Account(google, j***@example.com)`, or `Account(google, unknown account)`.
    public var description: String {
        let shown = maskedDisplayIdentifier ?? (isUnknown ? "unknown account" : "no display identifier")
        return "Account(\(providerID), \(shown))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// A mirror that shows only masked values.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["providerID": providerID, "displayIdentifier": maskedDisplayIdentifier as Any],
            displayStyle: .struct
        )
    }

    /// Masks an identifier: the first character stays, the rest of the local part becomes `***`; the domain of an
    /// e-mail address is kept.
    static func mask(_ identifier: String) -> String {
        guard let first = identifier.first else { return "***" }
        if let at = identifier.lastIndex(of: "@"), at != identifier.startIndex {
            return "\(first)***\(identifier[at...])"
        }
        return "\(first)***"
    }
}
