"""A fresh Python process that prints a valid access token, the peers' counterpart of `tether token`:

    python3 bench/print_token.py PEER TOKEN_FILE TOKEN_ENDPOINT USERINFO_ENDPOINT LEEWAY

It imports the library, restores the client from the saved token file, gets a valid token and prints it.
"""

import asyncio
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import peers  # noqa: E402


def main(name, path, token_endpoint, userinfo_endpoint, leeway):
    peer = getattr(peers, name)({"token": token_endpoint, "userinfo": userinfo_endpoint}, float(leeway))
    client = peer.restore(path)
    if peer.is_async:
        token = asyncio.run(peer.valid_token(client))
    else:
        token = peer.valid_token(client)
    print(token)


if __name__ == "__main__":
    main(*sys.argv[1:6])
