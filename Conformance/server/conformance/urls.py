from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt

import oauth2_provider.urls as dot_urls

from . import views

urlpatterns = [
    path("", views.home),
    # The sign-in form: fields #username and #password, button #allow (the ids Scripts/headless-browser.py uses).
    path("accounts/login/", auth_views.LoginView.as_view(template_name="registration/login.html"), name="login"),
    # DOT's device authorization endpoint with a switchable device code lifetime (views.DeviceAuthorization).
    path("o/device-authorization/", csrf_exempt(views.DeviceAuthorization.as_view())),
    # DOT under /o/: issuer http://127.0.0.1:PORT/o, OpenID Connect discovery at /o/.well-known/openid-configuration.
    path("o/", include(dot_urls)),
    # RFC 8414 §3: metadata at the root with the issuer's path appended (/.well-known/oauth-authorization-server/o),
    # as django-oauth-toolkit's docs/oauth2_server_metadata.rst recommends for a prefixed mount.
    path("", include((dot_urls.metadata_urlpatterns, "oauth2_metadata"))),
    path("api/resource/", views.resource),
    path("api/resource-rfc6750/", views.resource_rfc6750),
    path("conformance/settings", views.switch_settings),
    path("conformance/requests", views.request_log),
    path("conformance/expire", views.expire),
    path("conformance/rotate-key", views.rotate_key),
]
