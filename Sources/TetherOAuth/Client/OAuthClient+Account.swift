import Foundation
import Logging
import Tether

extension OAuthClient {
    /// Verifies an ID token from the token endpoint: with the configured validator (signature included), or by
    /// its claims alone when there is none.
    ///
    /// A token signed with a key the validator cannot find (``IDTokenError/unknownKey``) is also checked by its
    /// claims alone. That is a provider that has just rotated its signing key while the validator may not fetch
    /// its keys again yet (`JWKSIDTokenValidator` re-fetches at most once a minute by default): the token came over
    /// this client's own connection to the token endpoint, which OpenID Connect Core 1.0 §3.1.3.7, step 6 lets
    /// stand in for the signature, and rejecting the response would throw away a code the provider has redeemed or
    /// a refresh token it has rotated (docs/decisions.md §32). A signature that a key in the set does not verify is still refused.
    ///
    /// With `isRefresh`, a key set that cannot be fetched at all (``IDTokenError/keysUnavailable``) falls back to the
    /// claims as well: the provider has already rotated the refresh token, and refusing its answer would make the
    /// next refresh a reuse that ends the grant (docs/decisions.md §35). A sign-in still fails transiently then, as
    /// nothing is stored yet and the person can try again.
    func verifiedClaims(
        of idToken: IDToken?,
        nonce: String?,
        required: Bool,
        isRefresh: Bool = false
    ) async throws -> IDTokenClaims? {
        guard let idToken else {
            if required {
                throw OAuthError.missingIDToken.with(
                    message: "\(configuration.providerID) returned no id_token although openid was requested"
                )
            }
            return nil
        }
        guard let issuer = configuration.issuer else { return nil }
        let expectations = IDTokenExpectations(
            issuer: issuer,
            alternativeIssuers: configuration.alternativeIssuers,
            audience: configuration.clientID,
            nonce: nonce,
            now: dateSource.now
        )
        do {
            if let idTokenValidator {
                do {
                    return try await idTokenValidator.validate(idToken, expecting: expectations)
                } catch let error as IDTokenError where error == .unknownKey {
                    logger.debug(
                        "ID token signed with a key the validator does not have; checking its claims",
                        metadata: ["oauth.id_token_error": "\(error.message)"]
                    )
                } catch let error as IDTokenError where error == .keysUnavailable && isRefresh {
                    logger.info(
                        "The provider's signing keys could not be fetched; checking the refreshed ID token's claims",
                        metadata: ["oauth.id_token_error": "\(error.message)"]
                    )
                }
            }
            let claims = try IDTokenClaims.decodeUnverified(idToken)
            try claims.check(against: expectations)
            return claims
        } catch let error as IDTokenError {
            logger.debug("ID token rejected", metadata: ["oauth.id_token_error": "\(error.message)"])
            throw OAuthError.idTokenRejected.with(
                message: "The ID token was rejected: \(error.message)",
                classification: error.isTransient ? .transient : .configuration,
                cause: error
            )
        }
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
