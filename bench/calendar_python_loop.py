#!/usr/bin/env python3
"""What a user might write instead of `tether calendar sync`: a plain loop with the Python standard library.

    python3 bench/calendar_python_loop.py BASE_URL TOKEN

Reads the calendar list and every page of the primary calendar's events (following `nextPageToken`) over one
keep-alive connection, parses each page with `json.loads`, and prints how many events it read. It keeps nothing,
converts nothing and caches nothing: it is the floor a client that does more is compared with.
"""

import http.client
import json
import sys
import urllib.parse


def main(base, token):
    url = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    headers = {"Authorization": "Bearer " + token, "Accept": "application/json"}

    def get(path, query):
        connection.request("GET", url.path + path + "?" + urllib.parse.urlencode(query), headers=headers)
        response = connection.getresponse()
        body = response.read()
        if response.status != 200:
            raise SystemExit("calendar_python_loop: HTTP %d for %s" % (response.status, path))
        return json.loads(body)

    calendars = get("/users/me/calendarList", {"maxResults": 250})["items"]
    count = 0
    for calendar in calendars:
        query = {"singleEvents": "true", "maxResults": 250}
        while True:
            page = get("/calendars/%s/events" % urllib.parse.quote(calendar["id"], safe=""), query)
            count += len(page.get("items", []))
            if "nextPageToken" not in page:
                break
            query["pageToken"] = page["nextPageToken"]
    print(count)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "none"))
