"""Test-only endpoints of the conformance server (never part of a real deployment).

    GET  /conformance/settings      the switchable DOT settings now in force (JSON)
    POST /conformance/settings      JSON object of DOT setting names to new values; takes effect for the next request
                                    (also DEVICE_CODE_EXPIRE_SECONDS: `expires_in` of new device codes, not a DOT
                                    setting; see DeviceAuthorization below)
    GET  /conformance/requests      the request log (see middleware.py); ?clear=1 empties it afterwards
    POST /conformance/expire        {"what": "access"|"refresh"|"all"}: every live access token expires now
                                    ("refresh" and "all" also revoke every refresh token)
    POST /conformance/rotate-key    a new RSA signing key signs ID tokens from now on; the previous one stays in the
                                    JWKS ({"keep_previous": false} drops it: tokens it signed no longer verify)
    GET  /api/resource/             a resource protected the way DOT protects one by default (403 without a challenge)
    GET  /api/resource-rfc6750/     a resource protected with RFC 6750 challenges (401 + WWW-Authenticate)

The /conformance/ endpoints need the header `X-Conformance-Key` with the key start-server.sh wrote to
$CONFORMANCE_STATE/admin-key.
"""

import json
import os
from datetime import timedelta

from django.conf import settings
from django.http import HttpResponse, HttpResponseForbidden, JsonResponse
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.views.decorators.csrf import csrf_exempt
from oauth2_provider.decorators import protected_resource
from oauth2_provider.models import get_access_token_model, get_refresh_token_model
from oauth2_provider.settings import oauth2_settings
from oauth2_provider.views.device import DeviceAuthorizationView
from oauthlib.oauth2 import DeviceApplicationServer

from . import middleware

SWITCHABLE = (
    "ACCESS_TOKEN_EXPIRE_SECONDS",
    "REFRESH_TOKEN_EXPIRE_SECONDS",
    "ROTATE_REFRESH_TOKEN",
    "REFRESH_TOKEN_REUSE_PROTECTION",
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS",
    "DEVICE_FLOW_INTERVAL",
    "OIDC_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED",
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED",
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS",
    "OIDC_ENABLED",
)


# oauthlib's device endpoint takes the device code lifetime (`expires_in`, default 1800 s) as an argument that
# DOT's DeviceApplicationServer does not pass on, so the conformance server sets it here to test expiry.
DEVICE_CODE = {"DEVICE_CODE_EXPIRE_SECONDS": int(os.environ.get("CONFORMANCE_DEVICE_CODE_SECONDS", "") or 1800)}


class ConformanceDeviceServer(DeviceApplicationServer):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._expires_in = DEVICE_CODE["DEVICE_CODE_EXPIRE_SECONDS"]


class DeviceAuthorization(DeviceAuthorizationView):
    server_class = ConformanceDeviceServer


def _authorized(request):
    return constant_time_compare(request.headers.get("X-Conformance-Key", ""), settings.ADMIN_KEY)


def _current():
    return {**{name: getattr(oauth2_settings, name) for name in SWITCHABLE}, **DEVICE_CODE}


@csrf_exempt
def switch_settings(request):
    if not _authorized(request):
        return HttpResponseForbidden("X-Conformance-Key missing or wrong\n")
    if request.method == "POST":
        try:
            changes = json.loads(request.body or b"{}")
        except ValueError:
            return JsonResponse({"error": "the body is not JSON"}, status=400)
        unknown = sorted(set(changes) - set(SWITCHABLE) - set(DEVICE_CODE))
        if unknown:
            return JsonResponse({"error": "not switchable: " + ", ".join(unknown)}, status=400)
        for name in DEVICE_CODE:
            if name in changes:
                DEVICE_CODE[name] = int(changes.pop(name))
        settings.OAUTH2_PROVIDER.update(changes)
        oauth2_settings.reload()
    return JsonResponse(_current())


@csrf_exempt
def request_log(request):
    if not _authorized(request):
        return HttpResponseForbidden("X-Conformance-Key missing or wrong\n")
    entries = middleware.entries()
    if request.GET.get("clear"):
        middleware.clear()
    return JsonResponse({"requests": entries})


@csrf_exempt
def expire(request):
    if not _authorized(request) or request.method != "POST":
        return HttpResponseForbidden("POST with X-Conformance-Key\n")
    what = json.loads(request.body or b"{}").get("what", "access")
    past = timezone.now() - timedelta(seconds=1)
    expired = get_access_token_model().objects.filter(expires__gt=past).update(expires=past)
    revoked = 0
    if what in ("refresh", "all"):
        revoked = get_refresh_token_model().objects.filter(revoked__isnull=True).update(revoked=timezone.now())
    return JsonResponse({"expired_access_tokens": expired, "revoked_refresh_tokens": revoked})


@csrf_exempt
def rotate_key(request):
    if not _authorized(request) or request.method != "POST":
        return HttpResponseForbidden("POST with X-Conformance-Key\n")
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    keep_previous = json.loads(request.body or b"{}").get("keep_previous", True)
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    provider = settings.OAUTH2_PROVIDER
    previous = [provider["OIDC_RSA_PRIVATE_KEY"]] if keep_previous else []
    provider["OIDC_RSA_PRIVATE_KEYS_INACTIVE"] = previous
    provider["OIDC_RSA_PRIVATE_KEY"] = pem
    oauth2_settings.reload()
    return JsonResponse({"keys_in_jwks": 1 + len(previous)})


@protected_resource(scopes=["read"])
def resource(request):
    return JsonResponse({"resource": "ok", "user": request.resource_owner.username})


@protected_resource(scopes=["read"], advertise_metadata=True)
def resource_rfc6750(request):
    return JsonResponse({"resource": "ok", "user": request.resource_owner.username})


def home(request):
    return HttpResponse("django-oauth-toolkit conformance server; issuer " + settings.ISSUER + "\n",
                        content_type="text/plain")
