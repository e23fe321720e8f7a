"""Creates the test user and the registered clients, and writes them to $CONFORMANCE_STATE/clients.json.

User: ada / lovelace (the development provider's test user, so Scripts/headless-browser.py works unchanged).

Clients (redirect URIs registered without a port: django-oauth-toolkit accepts any port at request time for
http://127.0.0.1 and http://[::1], RFC 8252 §7.3; `localhost` only with ALLOW_LOCALHOST_LOOPBACK):

    tether-public     public, authorization code + PKCE, no consent page
    tether-consent    public, authorization code + PKCE, with DOT's consent page ("allow")
    tether-basic      confidential, authorization code, client_secret_basic only (see validators.py)
    tether-post       confidential, authorization code, client_secret_post only
    tether-device     public, device authorization grant (RFC 8628)
    tether-device-confidential   confidential, device authorization grant, client_secret_basic only

Client secrets are random per start and only written to clients.json (mode 0600).
"""

import json
import os
import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from oauth2_provider.models import get_application_model

REDIRECTS = "http://127.0.0.1/callback http://[::1]/callback"
CODE = "authorization-code"
DEVICE = "urn:ietf:params:oauth:grant-type:device_code"

CLIENTS = [
    # client_id, name, client_type, grant type, redirect URIs, skip the consent page
    ("tether-public", "tether-public", "public", CODE, REDIRECTS, True),
    ("tether-consent", "tether-consent", "public", CODE, REDIRECTS, False),
    ("tether-basic", "tether-basic", "confidential", CODE, REDIRECTS, True),
    ("tether-post", "tether-post", "confidential", CODE, REDIRECTS, True),
    ("tether-device", "tether-device", "public", DEVICE, "", True),
    ("tether-device-confidential", "tether-device-confidential-basic", "confidential", DEVICE, "", True),
]


class Command(BaseCommand):
    help = "Create the conformance test user and clients."

    def handle(self, *args, **options):
        User = get_user_model()
        user, _ = User.objects.get_or_create(username="ada")
        user.first_name, user.last_name, user.email = "Ada", "Lovelace", "ada@example.com"
        user.set_password("lovelace")
        user.save()

        Application = get_application_model()
        written = {"issuer": settings.ISSUER, "base": settings.BASE, "user": "ada", "password": "lovelace",
                   "clients": {}}
        for client_id, name, client_type, grant, redirects, skip in CLIENTS:
            secret = secrets.token_urlsafe(32) if client_type == "confidential" else ""
            Application.objects.filter(client_id=client_id).delete()
            Application.objects.create(
                client_id=client_id,
                name=name,
                client_type=client_type,
                authorization_grant_type=grant,
                redirect_uris=redirects,
                client_secret=secret,
                skip_authorization=skip,
                algorithm="RS256",
                user=user,
            )
            written["clients"][client_id] = {"type": client_type, "grant": grant, "secret": secret or None}
        path = Path(settings.STATE) / "clients.json"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            json.dump(written, handle, indent=2)
        self.stdout.write(" ".join(c[0] for c in CLIENTS))
