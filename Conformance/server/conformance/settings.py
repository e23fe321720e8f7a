"""Settings of the conformance server: django-oauth-toolkit as an OAuth 2.0 / OpenID Connect provider on loopback.

Everything comes from the environment that start-server.sh sets:

    CONFORMANCE_STATE            folder for the SQLite database, the RSA key and the admin key (required)
    CONFORMANCE_PORT             the port the server listens on (required; it is part of the issuer)

Switches (each also changeable at run time through POST /conformance/settings, see views.py):

    CONFORMANCE_ACCESS_TOKEN_SECONDS     ACCESS_TOKEN_EXPIRE_SECONDS (default 3600)
    CONFORMANCE_REFRESH_TOKEN_SECONDS    REFRESH_TOKEN_EXPIRE_SECONDS (default unset: no expiry)
    CONFORMANCE_ROTATE_REFRESH_TOKEN     ROTATE_REFRESH_TOKEN, 1 or 0 (default 1)
    CONFORMANCE_REUSE_PROTECTION         REFRESH_TOKEN_REUSE_PROTECTION, 1 or 0 (default 0, as DOT's)
    CONFORMANCE_GRACE_SECONDS            REFRESH_TOKEN_GRACE_PERIOD_SECONDS (default 0)
    CONFORMANCE_DEVICE_INTERVAL          DEVICE_FLOW_INTERVAL, seconds between device polls (default 5)
    CONFORMANCE_DEVICE_CODE_SECONDS      `expires_in` of device codes (default 1800; views.DeviceAuthorization)
    CONFORMANCE_AUTH_METHODS             token_endpoint_auth_methods_supported, space-separated
                                         (default "client_secret_post client_secret_basic", as DOT's)
    CONFORMANCE_ISS_PARAMETER            COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS, 1 or 0 (RFC 9207 iss; default 0)
    CONFORMANCE_OIDC                     OIDC_ENABLED, 1 or 0 (default 1; 0 leaves only RFC 8414 metadata)
"""

import os
from pathlib import Path


def _flag(name, default):
    return os.environ.get(name, "1" if default else "0").strip().lower() in ("1", "true", "yes", "on")


def _int(name, default):
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


STATE = Path(os.environ["CONFORMANCE_STATE"])
PORT = int(os.environ["CONFORMANCE_PORT"])
BASE = f"http://127.0.0.1:{PORT}"
ISSUER = f"{BASE}/o"
ADMIN_KEY = (STATE / "admin-key").read_text().strip()

SECRET_KEY = (STATE / "django-secret").read_text().strip()
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]
ROOT_URLCONF = "conformance.urls"
WSGI_APPLICATION = None
USE_TZ = True
TIME_ZONE = "UTC"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "oauth2_provider",
    "conformance",
]

MIDDLEWARE = [
    "conformance.middleware.RequestLogMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
            ]
        },
    }
]

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(STATE / "db.sqlite3"),
        # Concurrent refreshes (several `tether token` processes at once) write at the same moment: take the
        # write lock at the start of each transaction and wait for it instead of failing with "database is locked".
        "OPTIONS": {"timeout": 30, "transaction_mode": "IMMEDIATE"},
    }
}

# The test user's password and the clients' secrets are hashed with Django's fast test hasher: PBKDF2 (the default)
# costs about a second per start-up secret and per confidential-client request on a loaded two-core machine.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/o/device/"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {
        "conformance": {"handlers": ["console"], "level": "INFO"},
        "oauth2_provider": {"handlers": ["console"], "level": "WARNING"},
        "django.request": {"handlers": ["console"], "level": "ERROR"},
    },
}

OAUTH2_PROVIDER = {
    "OIDC_ENABLED": _flag("CONFORMANCE_OIDC", True),
    "OIDC_RSA_PRIVATE_KEY": (STATE / "oidc-key.pem").read_text(),
    "OIDC_ISS_ENDPOINT": ISSUER,
    "PKCE_REQUIRED": True,
    "SCOPES": {
        "openid": "OpenID Connect",
        "profile": "Your name",
        "email": "Your email address",
        "offline_access": "Access while you are away",
        "read": "Reading scope",
        "write": "Writing scope",
    },
    "DEFAULT_SCOPES": ["read"],
    "ACCESS_TOKEN_EXPIRE_SECONDS": _int("CONFORMANCE_ACCESS_TOKEN_SECONDS", 3600),
    "REFRESH_TOKEN_EXPIRE_SECONDS": _int("CONFORMANCE_REFRESH_TOKEN_SECONDS", None),
    "ROTATE_REFRESH_TOKEN": _flag("CONFORMANCE_ROTATE_REFRESH_TOKEN", True),
    "REFRESH_TOKEN_REUSE_PROTECTION": _flag("CONFORMANCE_REUSE_PROTECTION", False),
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": _int("CONFORMANCE_GRACE_SECONDS", 0),
    "DEVICE_FLOW_INTERVAL": _int("CONFORMANCE_DEVICE_INTERVAL", 5),
    "OAUTH_DEVICE_VERIFICATION_URI": f"{BASE}/o/device/",
    "OIDC_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": os.environ.get(
        "CONFORMANCE_AUTH_METHODS", "client_secret_post client_secret_basic"
    ).split(),
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": os.environ.get(
        "CONFORMANCE_AUTH_METHODS", "client_secret_post client_secret_basic"
    ).split(),
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": _flag("CONFORMANCE_ISS_PARAMETER", False),
    "OAUTH2_VALIDATOR_CLASS": "conformance.validators.ConformanceValidator",
    # Settings changed at run time (POST /conformance/settings) reach the oauthlib server, which DOT otherwise
    # builds once with the lifetimes and the device interval of start-up.
    "ALWAYS_RELOAD_OAUTHLIB_CORE": True,
}
