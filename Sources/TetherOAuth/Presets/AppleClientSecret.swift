public import Crypto
public import Foundation
public import Tether

/// Makes Sign in with Apple client secrets: ES256 JWTs signed with the team's Sign in with Apple key.
///
/// Header `alg: ES256`, `kid` = the 10-character key id; claims `iss` = team id, `iat`, `exp` (at most
/// 15,777,000 seconds — about six months — after `iat`), `aud` = `https://appleid.apple.com`, `sub` = the client
/// id. Its description never shows the key.
public struct AppleClientSecret: Sendable, CustomStringConvertible {
    /// The 10-character team id.
    public let teamID: String
    /// The 10-character key id of the Sign in with Apple key.
    public let keyID: String
    /// The Services ID or bundle id.
    public let clientID: String
    /// How long each secret is valid; one hour by default, at most 15,777,000 seconds.
    public let lifetime: Duration
    /// The audience; Apple's issuer unless a test provider says otherwise.
    public let audience: String
    private let privateKey: P256.Signing.PrivateKey

    /// The longest lifetime Apple accepts.
    public static let maximumLifetime = Duration.seconds(15_777_000)

    /// Creates a maker from the `.p8` file's PEM text.
    /// - Parameters:
    ///   - teamID: The team id.
    ///   - keyID: The key id.
    ///   - clientID: The Services ID or bundle id.
    ///   - privateKeyPEM: The contents of the `.p8` file (`-----BEGIN PRIVATE KEY-----`).
    ///   - lifetime: How long each secret is valid.
    ///   - audience: The `aud` claim.
    /// - Throws: ``ProviderConfigurationError/invalidValue`` when the key cannot be read or the lifetime is too
    ///   long; the message never contains the key.
    public init(
        teamID: String,
        keyID: String,
        clientID: String,
        privateKeyPEM: String,
        lifetime: Duration = .seconds(3600),
        audience: String = "https://appleid.apple.com"
    ) throws {
        let key: P256.Signing.PrivateKey
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw ProviderConfigurationError.invalidValue.with(
                message: "The Sign in with Apple key is not a PEM-encoded P-256 private key (.p8)"
            )
        }
        try self.init(
            teamID: teamID,
            keyID: keyID,
            clientID: clientID,
            privateKey: key,
            lifetime: lifetime,
            audience: audience
        )
    }

    /// Creates a maker from a key.
    /// - Parameters:
    ///   - teamID: The team id.
    ///   - keyID: The key id.
    ///   - clientID: The Services ID or bundle id.
    ///   - privateKey: The P-256 signing key.
    ///   - lifetime: How long each secret is valid.
    ///   - audience: The `aud` claim.
    /// - Throws: ``ProviderConfigurationError/invalidValue`` when the lifetime exceeds ``maximumLifetime``.
    public init(
        teamID: String,
        keyID: String,
        clientID: String,
        privateKey: P256.Signing.PrivateKey,
        lifetime: Duration = .seconds(3600),
        audience: String = "https://appleid.apple.com"
    ) throws {
        guard lifetime > .zero, lifetime <= Self.maximumLifetime else {
            throw ProviderConfigurationError.invalidValue.with(
                message: "An Apple client secret may live at most 15777000 seconds"
            )
        }
        self.teamID = teamID
        self.keyID = keyID
        self.clientID = clientID
        self.privateKey = privateKey
        self.lifetime = lifetime
        self.audience = audience
    }

    /// Signs a client secret valid from `now` for ``lifetime``.
    /// - Parameter now: The issue time.
    /// - Returns: The compact JWT.
    /// - Throws: An error from the signer.
    public func make(now: Date) throws -> ClientSecret {
        let issuedAt = Int(now.timeIntervalSince1970)
        let header = #"{"alg":"ES256","kid":"\#(Self.escape(keyID))"}"#
        let claims =
            #"{"iss":"\#(Self.escape(teamID))","iat":\#(issuedAt),"exp":\#(issuedAt + Int(lifetime.components.seconds)),"aud":"\#(Self.escape(audience))","sub":"\#(Self.escape(clientID))"}"#
        let signingInput = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(claims.utf8))
        let signature = try privateKey.signature(for: Data(signingInput.utf8))
        return ClientSecret(signingInput + "." + Base64URL.encode(signature.rawRepresentation))
    }

    /// A provider for ``OAuthClient``'s `clientSecretProvider`: a fresh secret per request, on `dateSource`.
    /// - Parameter dateSource: The wall clock.
    /// - Returns: The provider closure.
    public func provider(dateSource: DateSource = .system) -> @Sendable () throws -> ClientSecret {
        { try self.make(now: dateSource.now) }
    }

    /// `AppleClientSecret(team, key id, client id)`; the key is never shown.
    public var description: String { "AppleClientSecret(\(teamID), \(keyID), \(clientID))" }

    private static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}
