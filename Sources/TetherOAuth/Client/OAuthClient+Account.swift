import Foundation
import Logging
import Tether

extension OAuthClient {
    /// Verifies an ID token from the token endpoint: with the configured validator (signature included), or by
    /// its claims alone when there is none (docs/decisions.md §13).
    ///
    /// When the validator cannot check the signature — the token names a key missing from the provider's key set
    /// even after the validator fetched it again (``IDTokenError/unknownKey``), or, on a refresh, the keys cannot be
    /// fetched at all (``IDTokenError/keysUnavailable``) — the claims are checked all the same, and then decide only
    /// over TLS: OpenID Connect Core 1.0 §3.1.3.7, step 6 lets the client's own TLS connection to the token endpoint
    /// stand in for the signature, which plain HTTP (a loopback development provider) cannot (docs/decisions.md §32,
    /// §35). The result says which; a sign-in refuses such a token, and a refresh drops it (see
    /// ``refresh(_:)``). A signature that a key in the set does not verify is always refused, and a sign-in whose
    /// keys cannot be fetched fails transiently, as nothing is stored yet and the person can try again.
    func checkedIDToken(_ idToken: IDToken, nonce: String?, isRefresh: Bool) async throws -> IDTokenCheck {
        guard let issuer = configuration.issuer else { return .unchecked }
        let expectations = IDTokenExpectations(
            issuer: issuer,
            alternativeIssuers: configuration.alternativeIssuers,
            audience: configuration.clientID,
            nonce: nonce,
            now: dateSource.now
        )
        do {
            var unverifiable: IDTokenError?
            if let idTokenValidator {
                do {
                    return .verified(try await idTokenValidator.validate(idToken, expecting: expectations))
                } catch let error as IDTokenError
                    where error == .unknownKey || (error == .keysUnavailable && isRefresh)
                {
                    unverifiable = error
                }
            }
            let claims = try IDTokenClaims.decodeUnverified(idToken)
            try claims.check(against: expectations)
            guard let unverifiable else { return .verified(claims) }
            let metadata: Logger.Metadata = [
                "oauth.id_token_error": "\(unverifiable.message)",
                "oauth.grant_type": "\(isRefresh ? "refresh_token" : "authorization")",
            ]
            guard configuration.tokenEndpoint.scheme?.lowercased() == "https" else {
                logger.info(
                    "The ID token's signature cannot be checked and the token endpoint is not reached over TLS",
                    metadata: metadata
                )
                return .unauthenticated(claims, unverifiable)
            }
            logger.info(
                "The ID token's signature cannot be checked; its claims are accepted, as it came over TLS",
                metadata: metadata
            )
            return .verified(claims)
        } catch let error as IDTokenError {
            logger.debug("ID token rejected", metadata: ["oauth.id_token_error": "\(error.message)"])
            throw Self.idTokenRejected(error)
        }
    }

    /// Verifies an ID token of a sign-in (``checkedIDToken(_:nonce:isRefresh:)``), which must be authenticated.
    /// - Parameter required: Whether an absent ID token is an error (``OAuthError/missingIDToken``).
    /// - Returns: The claims, or `nil` without an ID token or an issuer.
    func verifiedClaims(of idToken: IDToken?, nonce: String?, required: Bool) async throws -> IDTokenClaims? {
        guard let idToken else {
            if required {
                throw OAuthError.missingIDToken.with(
                    message: "\(configuration.providerID) returned no id_token although openid was requested"
                )
            }
            return nil
        }
        switch try await checkedIDToken(idToken, nonce: nonce, isRefresh: false) {
        case .verified(let claims): return claims
        case .unchecked: return nil
        case .unauthenticated(_, let error):
            throw Self.idTokenRejected(
                error,
                message: "The ID token was rejected: its signature cannot be checked (\(error.message)), "
                    + "and over plain HTTP its claims alone prove nothing"
            )
        }
    }

    /// An ``OAuthError/idTokenRejected`` for `error`: transient when the keys could not be fetched.
    static func idTokenRejected(_ error: IDTokenError, message: String? = nil) -> OAuthError {
        OAuthError.idTokenRejected.with(
            message: message ?? "The ID token was rejected: \(error.message)",
            classification: error.isTransient ? .transient : .configuration,
            cause: error
        )
    }

    /// The account a sign-in is for: from the ID token, else from userinfo when the grant allows it (`openid`
    /// granted: OpenID Connect Core 1.0 §5.3 serves userinfo to such tokens) or from GitHub's `GET /user` (any
    /// token), else `nil`. A userinfo failure is
    /// logged and yields `nil`: it never discards the tokens the person just granted.
    func account(claims: IDTokenClaims?, tokens: TokenSet, requestedScopes: [String]) async -> Account? {
        if let claims {
            return Account(
                providerID: configuration.providerID,
                subject: claims.subject,
                displayIdentifier: claims.email ?? claims.preferredUsername ?? claims.name
            )
        }
        // RFC 6749 §5.1: a response without `scope` granted what was asked.
        let granted = tokens.scopes ?? requestedScopes
        let isGitHub = configuration.accountLookup == .gitHubUser
        guard configuration.userinfoEndpoint != nil, isGitHub || granted.contains("openid"),
            let accessToken = tokens.accessToken
        else { return nil }
        do {
            let info = try await userInfo(accessToken: accessToken)
            // GitHub accounts are known by their login; OpenID Connect ones by their email.
            return Account(
                providerID: configuration.providerID,
                subject: info.subject,
                displayIdentifier: isGitHub
                    ? info.preferredUsername ?? info.email : info.email ?? info.preferredUsername ?? info.name
            )
        } catch {
            logger.info(
                "Userinfo failed during sign-in; the connection is kept without an account",
                metadata: ["oauth.error": "\((error as? any TetherError)?.message ?? "\(type(of: error))")"]
            )
            return nil
        }
    }
}

/// What checking an ID token from the token endpoint found.
enum IDTokenCheck {
    /// Signed by a key of the provider, or received over TLS (see ``OAuthClient/checkedIDToken(_:nonce:isRefresh:)``),
    /// with the right claims.
    case verified(IDTokenClaims)
    /// The right claims, but neither a signature nor TLS vouches for them: the error says why the signature could not
    /// be checked.
    case unauthenticated(IDTokenClaims, IDTokenError)
    /// The configuration names no issuer to check against.
    case unchecked
}
