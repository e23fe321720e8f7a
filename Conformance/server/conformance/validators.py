"""The request validator of the conformance server: DOT's own, plus claims for the test user and one client
authentication method per confidential client.

django-oauth-toolkit accepts `client_secret_basic` and `client_secret_post` from every confidential client
(OAuth2Validator.authenticate_client tries the Authorization header, then the body). A client whose name ends in
`-basic` or `-post` is held to that one method here, so a test proves which method the client really used
(RFC 6749 §2.3.1; OpenID Connect Dynamic Client Registration 1.0 §2, `token_endpoint_auth_method`).
"""

import logging

from oauth2_provider.oauth2_validators import OAuth2Validator

log = logging.getLogger("conformance")


class ConformanceValidator(OAuth2Validator):
    # OpenID Connect Core 1.0 §5.4: profile and email claims are released for the scopes of those names.
    oidc_claim_scope = {
        "sub": "openid",
        "name": "profile",
        "preferred_username": "profile",
        "email": "email",
        "email_verified": "email",
    }

    def get_additional_claims(self, request):
        user = request.user
        return {
            "name": f"{user.first_name} {user.last_name}".strip() or user.username,
            "preferred_username": user.username,
            "email": user.email,
            "email_verified": True,
        }

    def authenticate_client(self, request, *args, **kwargs):
        used_basic = bool(self._extract_basic_auth(request))
        authenticated = super().authenticate_client(request, *args, **kwargs)
        client = getattr(request, "client", None)
        name = getattr(client, "name", "") or ""
        if authenticated and name.endswith("-basic") and not used_basic:
            log.info("refused %s: it must use client_secret_basic", name)
            return False
        if authenticated and name.endswith("-post") and used_basic:
            log.info("refused %s: it must use client_secret_post", name)
            return False
        return authenticated
