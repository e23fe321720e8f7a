"""The Python peers of the side-by-side benchmark: one small adapter per library.

Each adapter builds the library's own client from a token dictionary, as an application that restored its saved
tokens would, and offers the operations the benchmark compares: an authorized GET (the library refreshes an expired
token on its own inside it), getting a valid token without a request where the library has such a call, and
restoring from a saved file. An adapter raises SignedOut when the provider answers `invalid_grant`, which for the
user means signing in again.
"""

import asyncio
import datetime
import json
import logging
import os
import threading
import warnings

# oauthlib refuses plain HTTP unless told otherwise; the provider listens on 127.0.0.1 only.
os.environ["OAUTHLIB_INSECURE_TRANSPORT"] = "1"
warnings.filterwarnings("ignore", module="authlib")
# A pool that is full only logs a warning; 1,000 threads on one session fill it on purpose.
logging.getLogger("urllib3").setLevel(logging.ERROR)

CLIENT_ID = "tether-dev-client"


class SignedOut(Exception):
    """The grant is gone: the provider refused the refresh token (`invalid_grant`)."""


class Unauthorized(Exception):
    """The resource server refused the access token (401), for example after its grant was revoked."""


def check(status):
    if status == 401:
        raise Unauthorized()
    if status >= 300:
        raise RuntimeError("status %d" % status)


def classify(error):
    text = repr(error)
    if "invalid_grant" in text:
        return "needs_sign_in"
    if isinstance(error, Unauthorized):
        return "unauthorized"
    return "error:" + type(error).__name__


def is_signed_out(error):
    """Whether a peer's exception means the provider refused the refresh token (the grant is gone)."""
    return "invalid_grant" in repr(error) or type(error).__name__ == "InvalidGrantError"


class Peer:
    """What the peers share: a client made from a token dictionary, kept as JSON, and one authorized GET."""

    is_async = False

    def __init__(self, endpoints, leeway):
        self.endpoints = endpoints
        self.leeway = leeway

    def get(self, client):
        response = client.get(self.endpoints["userinfo"])
        check(response.status_code)
        return response

    def call(self, operation, client):
        try:
            return operation(client)
        except Exception as error:
            if is_signed_out(error):
                raise SignedOut() from error
            raise

    def save(self, client, path):
        with open(path, "w") as file:
            json.dump(dict(client.token), file)

    def restore(self, path):
        with open(path) as file:
            token = json.load(file)
        return self.make(token)

    def replace(self, client, token):
        client.token = dict(token)


class GoogleAuth(Peer):
    """google-auth: `google.oauth2.credentials.Credentials` + `google.auth.transport.requests.AuthorizedSession`."""

    name = "google-auth (AuthorizedSession)"

    def __init__(self, endpoints, leeway):
        import google.auth._helpers

        super().__init__(endpoints, leeway)
        # google-auth refreshes a token 3 min 45 s before it expires (REFRESH_THRESHOLD), so a token living a few
        # seconds would be refreshed on every call; it gets the same leeway as every other client here.
        google.auth._helpers.REFRESH_THRESHOLD = datetime.timedelta(seconds=leeway)

    def make(self, token):
        from google.auth.transport.requests import AuthorizedSession
        from google.oauth2.credentials import Credentials

        credentials = Credentials(
            token=token["access_token"],
            refresh_token=token["refresh_token"],
            token_uri=self.endpoints["token"],
            client_id=CLIENT_ID,
            # google-auth refuses to refresh without a client secret; the provider's public client ignores it.
            client_secret="unused",
            expiry=datetime.datetime.fromtimestamp(token["expires_at"], datetime.timezone.utc).replace(tzinfo=None),
        )
        return AuthorizedSession(credentials)

    def valid_token(self, client):
        # The step AuthorizedSession.request runs before each request: refresh if needed, set the header.
        headers = {}
        client.credentials.before_request(client._auth_request, "GET", self.endpoints["userinfo"], headers)
        return headers["authorization"]

    def save(self, client, path):
        with open(path, "w") as file:
            file.write(client.credentials.to_json())

    def restore(self, path):
        from google.auth.transport.requests import AuthorizedSession
        from google.oauth2.credentials import Credentials

        credentials = Credentials.from_authorized_user_file(path)
        return AuthorizedSession(credentials)

    def replace(self, client, token):
        client.credentials.token = token["access_token"]
        client.credentials._refresh_token = token["refresh_token"]
        client.credentials.expiry = datetime.datetime.fromtimestamp(
            token["expires_at"], datetime.timezone.utc
        ).replace(tzinfo=None)


class RequestsOAuthlib(Peer):
    """requests-oauthlib: `OAuth2Session` with `auto_refresh_url` (refreshes inside `request()`)."""

    name = "requests-oauthlib (OAuth2Session)"

    def make(self, token, leeway_applied=False):
        from requests_oauthlib import OAuth2Session

        token = dict(token)
        # requests-oauthlib has no leeway: it refreshes once `expires_at` has passed. The leeway is taken off the
        # saved expiry, which has the same effect (a token saved by `save` has it taken off already).
        if not leeway_applied:
            token["expires_at"] = token["expires_at"] - self.leeway
        return OAuth2Session(
            CLIENT_ID,
            token=token,
            auto_refresh_url=self.endpoints["token"],
            auto_refresh_kwargs={"client_id": CLIENT_ID},
            token_updater=lambda new: None,
        )

    def valid_token(self, client):
        # No call returns a valid token without sending a request; request() checks the expiry and adds the
        # header through the oauthlib client, which is what is measured (it raises once the token expired).
        return client._client.add_token(self.endpoints["userinfo"], http_method="GET", headers={})[1]

    def restore(self, path):
        with open(path) as file:
            token = json.load(file)
        return self.make(token, leeway_applied=True)

    def replace(self, client, token):
        token = dict(token)
        token["expires_at"] = token["expires_at"] - self.leeway
        client.token = token


class AuthlibSync(Peer):
    """Authlib: `authlib.integrations.requests_client.OAuth2Session` (refreshes inside `request()`)."""

    name = "Authlib (OAuth2Session, sync)"

    def make(self, token):
        from authlib.integrations.requests_client import OAuth2Session

        return OAuth2Session(
            client_id=CLIENT_ID,
            token=dict(token),
            token_endpoint=self.endpoints["token"],
            token_endpoint_auth_method="none",
            leeway=self.leeway,
            update_token=lambda token, refresh_token=None, access_token=None: None,
        )

    def valid_token(self, client):
        client.ensure_active_token(client.token)
        return client.token["access_token"]


class AuthlibAsync(Peer):
    """Authlib: `authlib.integrations.httpx_client.AsyncOAuth2Client` (an asyncio lock around its refresh)."""

    name = "Authlib (AsyncOAuth2Client)"
    is_async = True

    def make(self, token):
        import httpx
        from authlib.integrations.httpx_client import AsyncOAuth2Client

        async def update(token, refresh_token=None, access_token=None):
            return None

        return AsyncOAuth2Client(
            client_id=CLIENT_ID,
            token=dict(token),
            token_endpoint=self.endpoints["token"],
            token_endpoint_auth_method="none",
            leeway=self.leeway,
            update_token=update,
            limits=httpx.Limits(max_connections=100),
            timeout=60,
        )

    async def get(self, client):
        response = await client.get(self.endpoints["userinfo"])
        check(response.status_code)
        return response

    async def valid_token(self, client):
        await client.ensure_active_token(client.token)
        return client.token["access_token"]

    async def call(self, operation, client):
        try:
            return await operation(client)
        except Exception as error:
            if is_signed_out(error):
                raise SignedOut() from error
            raise


PEERS = [GoogleAuth, RequestsOAuthlib, AuthlibSync, AuthlibAsync]


def burst(peer, make, callers):
    """`callers` threads (or coroutines) share the client `make()` returns and send one authorized GET each,
    released together; their outcomes."""
    outcomes = {}
    lock = threading.Lock()

    def record(kind):
        with lock:
            outcomes[kind] = outcomes.get(kind, 0) + 1

    if peer.is_async:

        async def one(client):
            try:
                await peer.call(peer.get, client)
                record("ok")
            except SignedOut:
                record("needs_sign_in")
            except Exception as error:
                record(classify(error))

        async def main():
            client = make()
            await asyncio.gather(*(one(client) for _ in range(callers)))
            await client.aclose()

        asyncio.run(main())
        return outcomes

    client = make()
    barrier = threading.Barrier(callers)

    def worker():
        barrier.wait()
        try:
            peer.call(peer.get, client)
            record("ok")
        except SignedOut:
            record("needs_sign_in")
        except Exception as error:
            record(classify(error))

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(callers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return outcomes
