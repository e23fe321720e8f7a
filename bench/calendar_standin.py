#!/usr/bin/env python3
"""A stand-in for the Google Calendar API v3 that serves pre-built pages, so that a benchmark measures the client.

    python3 bench/calendar_standin.py [--events 5000] [--page-size 250] [--port 0]

Prints the API's base URL (`http://127.0.0.1:PORT/calendar/v3`) on its first line, then serves until stopped:

- `GET /calendar/v3/users/me/calendarList`: one primary calendar;
- `GET /calendar/v3/calendars/primary/events` without `syncToken`: the events in pages of `--page-size` (the page
  number is the page token), the last page with `nextSyncToken`;
- the same with `syncToken`: an empty page of changes (nothing changed) with the same `nextSyncToken`, or, after
  `change_one`, a page with one changed event.

Every page is built once, before the server starts, from events shaped like Google's (attendees, an HTML
description, conference data, reminders; about 2 KB each), starting today at 00:00 UTC, 5,000 of them over about
50 weeks. Answers are HTTP/1.1 with keep-alive, as Google's are. Needs only the Python standard library.
"""

import argparse
import datetime
import http.server
import json
import random
import socketserver
import sys
import urllib.parse

BASE = "/calendar/v3"
SYNC_TOKEN = "CPDAlvWDx70CEPDAlvWDx70CGAU="
# Time zones and their offsets in winter, when the generated events take place.
ZONES = [
    ("Europe/Berlin", 60),
    ("America/New_York", -300),
    ("Europe/London", 0),
    ("Asia/Tokyo", 540),
    ("America/Los_Angeles", -480),
]
TITLES = [
    "Design review",
    "1:1",
    "Sprint planning",
    "Customer call",
    "Team lunch",
    "Interview",
    "Quarterly business review",
    "Architecture sync",
    "Flight LH 454",
    "Dentist",
]
PEOPLE = [
    ("ada@example.com", "Ada Lovelace"),
    ("bob@example.com", "Bob Stone"),
    ("carol@example.org", "Carol Díaz"),
    ("dan@example.net", "Dan Okafor"),
    ("erin@example.com", "Erin Ng"),
    ("frank@example.org", "Frank Müller"),
    ("grace@example.com", "Grace Hopper"),
    ("heidi@example.net", "Heidi Larsen"),
]


def rfc3339(local, zone_offset_minutes=0):
    """A local time with its offset from UTC."""
    sign = "+" if zone_offset_minutes >= 0 else "-"
    hours, minutes = divmod(abs(zone_offset_minutes), 60)
    return local.strftime("%Y-%m-%dT%H:%M:%S") + "%s%02d:%02d" % (sign, hours, minutes)


def make_event(index, first_day, generator):
    """Event `index`: most are timed, one in eight lasts the day; every fourth is an instance of a weekly series."""
    day = first_day + datetime.timedelta(days=index * 350 // 5000)
    title = TITLES[index % len(TITLES)]
    organizer = PEOPLE[index % len(PEOPLE)]
    event_id = "evt%05d%s" % (index, "".join(generator.choice("abcdefghijklmnopqrstuv0123456789") for _ in range(14)))
    updated = (first_day - datetime.timedelta(days=generator.randint(1, 300))).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    event = {
        "kind": "calendar#event",
        "etag": '"%d"' % (3_400_000_000_000_000 + index * 7919),
        "id": event_id,
        "status": "tentative" if index % 17 == 0 else "confirmed",
        "htmlLink": "https://www.google.com/calendar/event?eid=" + event_id + "dGVzdEBleGFtcGxlLmNvbQ",
        "created": updated,
        "updated": updated,
        "summary": "%s #%d" % (title, index),
        "description": (
            "<p>Agenda for <b>%s</b>:</p><ul><li>Review the open items &amp; decisions</li>"
            "<li>Next steps, owners and dates</li><li>Any other business</li></ul>"
            '<p>Notes: <a href="https://docs.example.com/d/%s/edit">document</a><br>'
            "Dial-in details below.</p>" % (title, event_id)
        ),
        "location": "Room %d.%02d, Building %s" % (index % 5 + 1, index % 40, "ABCD"[index % 4]),
        "creator": {"email": organizer[0], "displayName": organizer[1]},
        "organizer": {"email": organizer[0], "displayName": organizer[1]},
        "iCalUID": event_id + "@google.com",
        "sequence": index % 3,
        "attendees": [
            {
                "email": email,
                "displayName": name,
                "responseStatus": ["accepted", "needsAction", "tentative", "declined"][(index + offset) % 4],
                **({"organizer": True} if email == organizer[0] else {}),
            }
            for offset, (email, name) in enumerate(PEOPLE[: 3 + index % 5])
        ],
        "hangoutLink": "https://meet.google.com/abc-defg-%03d" % (index % 1000),
        "conferenceData": {
            "entryPoints": [
                {
                    "entryPointType": "video",
                    "uri": "https://meet.google.com/abc-defg-%03d" % (index % 1000),
                    "label": "meet.google.com/abc-defg-%03d" % (index % 1000),
                },
                {
                    "entryPointType": "phone",
                    "uri": "tel:+1-555-0100-%04d" % index,
                    "label": "+1 555-0100-%04d" % index,
                    "pin": "%09d" % (index * 7),
                },
            ],
            "conferenceSolution": {
                "key": {"type": "hangoutsMeet"},
                "name": "Google Meet",
                "iconUri": "https://fonts.gstatic.com/s/i/productlogos/meet_2020q4/v6/web-512dp/"
                + "logo_meet_2020q4_color_2x_web_512dp.png",
            },
            "conferenceId": "abc-defg-%03d" % (index % 1000),
        },
        "reminders": {"useDefault": True},
        "eventType": "default",
    }
    if index % 8 == 7:
        event["start"] = {"date": day.strftime("%Y-%m-%d")}
        event["end"] = {"date": (day + datetime.timedelta(days=1)).strftime("%Y-%m-%d")}
        event["transparency"] = "transparent"
    else:
        zone, offset = ZONES[index % len(ZONES)]
        start = datetime.datetime(day.year, day.month, day.day, 7 + index % 11, (index % 4) * 15)
        end = start + datetime.timedelta(minutes=30 * (1 + index % 3))
        event["start"] = {"dateTime": rfc3339(start, offset), "timeZone": zone}
        event["end"] = {"dateTime": rfc3339(end, offset), "timeZone": zone}
    if index % 4 == 1:
        event["recurringEventId"] = "series%03d" % (index % 97)
        event["originalStartTime"] = event["start"]
    return event


def build_pages(count, page_size, first_day=None):
    """The answers, as bytes, by path and query: the calendar list, each events page, and the page of no changes."""
    first_day = first_day or datetime.datetime.now(datetime.timezone.utc).date()
    generator = random.Random(20261123)
    events = [make_event(index, first_day, generator) for index in range(count)]
    pages = []
    for start in range(0, max(count, 1), page_size):
        page = {
            "kind": "calendar#events",
            "etag": '"p3%d"' % start,
            "summary": "ada@example.com",
            "updated": "2026-11-20T08:00:00.000Z",
            "timeZone": "Europe/Berlin",
            "accessRole": "owner",
            "defaultReminders": [{"method": "popup", "minutes": 10}],
            "items": events[start : start + page_size],
        }
        if start + page_size < count:
            page["nextPageToken"] = str(len(pages) + 1)
        else:
            page["nextSyncToken"] = SYNC_TOKEN
        pages.append(json.dumps(page, ensure_ascii=False, separators=(",", ":")).encode())
    calendar_list = {
        "kind": "calendar#calendarList",
        "items": [
            {
                "kind": "calendar#calendarListEntry",
                "id": "primary",
                "summary": "ada@example.com",
                "timeZone": "Europe/Berlin",
                "accessRole": "owner",
                "primary": True,
                "selected": True,
            }
        ],
    }
    return {
        "calendarList": json.dumps(calendar_list).encode(),
        "pages": pages,
        "unchanged": changes_page([]),
        "events": events,
        "bytes": sum(len(page) for page in pages),
    }


def changes_page(changed):
    """The answer to a request with a sync token: `changed` events (none: nothing changed)."""
    page = {"kind": "calendar#events", "timeZone": "Europe/Berlin", "items": changed, "nextSyncToken": SYNC_TOKEN}
    return json.dumps(page, ensure_ascii=False, separators=(",", ":")).encode()


def change_one(answers, round_number):
    """From now on, answer a sync token with the first event changed (its title says `round_number`)."""
    event = dict(answers["events"][0], summary="Changed %d" % round_number)
    answers["unchanged"] = changes_page([event])


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body leave at once: no wait for a delayed acknowledgement between them.
    disable_nagle_algorithm = True
    answers = None

    def do_GET(self):  # noqa: N802 (the standard library's name)
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        body = None
        if url.path == BASE + "/users/me/calendarList":
            body = self.answers["calendarList"]
        elif url.path == BASE + "/calendars/primary/events":
            if "syncToken" in query:
                body = self.answers["unchanged"]
            else:
                number = int(query.get("pageToken", ["0"])[0])
                if 0 <= number < len(self.answers["pages"]):
                    body = self.answers["pages"][number]
        if body is None:
            self.send_response(404)
            body = b'{"error":{"code":404,"message":"Not Found"}}'
        else:
            self.send_response(200)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *arguments):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def start(count=5000, page_size=250, port=0):
    """Builds the pages and starts serving them on 127.0.0.1 in a thread; returns the server and its base URL."""
    import threading

    handler = type("PageHandler", (Handler,), {"answers": build_pages(count, page_size)})
    server = Server(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, "http://127.0.0.1:%d%s" % (server.server_address[1], BASE)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--page-size", type=int, default=250)
    parser.add_argument("--port", type=int, default=0)
    arguments = parser.parse_args()
    handler = type("PageHandler", (Handler,), {"answers": build_pages(arguments.events, arguments.page_size)})
    server = Server(("127.0.0.1", arguments.port), handler)
    print("http://127.0.0.1:%d%s" % (server.server_address[1], BASE), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
