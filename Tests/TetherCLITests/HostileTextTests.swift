import Foundation
import SignInTestSupport
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

@testable import TetherCLI

/// Text that someone else chose — an event an invitation put in the user's calendar, a calendar's name, the account
/// claim of a provider, a last error kept in `status.json` — through every table and message of `tether`, run as
/// a subprocess against the development provider: nothing in it reaches the terminal that the terminal would act on.
@Suite(.timeLimit(.minutes(3)))
struct HostileTextTests {
    /// Clears the screen, sets the window title, hides a link (OSC 8), writes the clipboard (OSC 52), starts a fake
    /// row with CR LF, reverses what follows (U+202E), and hides characters (zero-width space, BOM, C1 CSI).
    static let hostile =
        "\u{1B}[2J\u{1B}]0;owned\u{07}\u{1B}]8;;https://evil.example\u{1B}\\click\u{1B}]8;;\u{1B}\\"
        + "\u{1B}]52;c;ZXZpbA==\u{07}\r\n  09:00–10:00  FAKE ROW\u{202E}gnp.exe\u{200B}\u{FEFF}\u{9B}31m\u{7F}"

    /// Whether what a command printed is free of escapes, carriage returns, bidi overrides and C1 controls.
    static func expectInert(_ output: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let bytes = Array(output.utf8)
        #expect(!bytes.contains(0x1B), "ESC in \(what): \(output)", sourceLocation: sourceLocation)
        #expect(!bytes.contains(0x0D), "CR in \(what): \(output)", sourceLocation: sourceLocation)
        #expect(!bytes.contains(0x07), "BEL in \(what): \(output)", sourceLocation: sourceLocation)
        let scalars = output.unicodeScalars
        #expect(
            !scalars.contains { (0x80...0x9F).contains($0.value) },
            "a C1 control in \(what): \(output)",
            sourceLocation: sourceLocation
        )
        #expect(
            !scalars.contains { $0.properties.generalCategory == .format },
            "a bidi or invisible format character in \(what): \(output)",
            sourceLocation: sourceLocation
        )
        #expect(
            !output.split(separator: "\n").contains { $0.hasPrefix("  09:00–10:00  FAKE ROW") },
            "a fake row in \(what): \(output)",
            sourceLocation: sourceLocation
        )
    }

    /// A user whose `email` claim is hostile: the provider (or whoever sets the claim) chose it.
    static let mallory = DevProvider.User(
        username: "mallory",
        password: "secret",
        subject: "mallory-0003",
        email: "\u{1B}]0;owned\u{07}\u{202E}m@ex\u{1B}[2Jample.com\r\n  09:00–10:00  FAKE ROW",
        name: "Mallory"
    )

    @Test func hostileEventsAndCalendarNamesReachTheTablesOfEventsAndFlightsSafe() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginCalendar("ada-google", api: "google").status == 0)
        #expect(try await cli.loginCalendar("grace-outlook", api: "microsoft", as: "grace").status == 0)
        let epoch = await cli.provider.admin.calendarEpoch()
        for user in ["ada", "grace"] {
            let calendar = await cli.provider.admin.addCalendar(named: "Shared \(Self.hostile)", user: user)
            try await cli.provider.admin.addCalendarEvent(
                DevProvider.CalendarEvent(
                    summary: "Board meeting \(Self.hostile)",
                    description: Self.hostile,
                    location: "Room \(Self.hostile)",
                    start: .dateTime(epoch + 86_400 + 10 * 3600, timeZone: "UTC"),
                    end: .dateTime(epoch + 86_400 + 11 * 3600, timeZone: "UTC")
                ),
                user: user,
                calendar: calendar
            )
            try await cli.provider.admin.addCalendarEvent(
                DevProvider.CalendarEvent(
                    summary: "UA 990 SFO → IAD \(Self.hostile)",
                    location: Self.hostile,
                    start: .dateTime(epoch + 2 * 86_400 + 8 * 3600, timeZone: "UTC"),
                    end: .dateTime(epoch + 2 * 86_400 + 13 * 3600, timeZone: "UTC")
                ),
                user: user,
                calendar: calendar
            )
        }
        let window = try await cli.window()

        let events = try await cli.run(["calendar", "events"] + window)
        #expect(events.status == 0, "\(events.stderr)")
        #expect(events.stdout.contains("Board meeting"), "\(events.stdout)")
        #expect(events.stdout.contains("Shared"), "the calendar's name: \(events.stdout)")
        Self.expectInert(events.stdout, "calendar events")
        Self.expectInert(events.stderr, "calendar events (standard error)")

        let flights = try await cli.run(["calendar", "flights"] + window)
        #expect(flights.status == 0, "\(flights.stderr)")
        #expect(flights.stdout.contains("UA990"), "\(flights.stdout)")
        Self.expectInert(flights.stdout, "calendar flights")
        Self.expectInert(flights.stderr, "calendar flights (standard error)")

        // --json stays exact: the title comes back as the calendar sent it.
        let json = try await cli.json(["calendar", "events", "--json"] + window)
        let list = try #require((json.object as? [String: Any])?["events"] as? [[String: Any]])
        #expect(list.contains { $0["title"] as? String == "Board meeting \(Self.hostile)" })
        #expect(list.contains { $0["location"] as? String == "Room \(Self.hostile)" })
    }

    @Test func aHostileAccountClaimAndLastErrorsReachLoginStatusAndSourcesSafe() async throws {
        var configuration = DevProvider.Configuration()
        configuration.users.append(Self.mallory)
        let cli = try await CLI.start(configuration)
        defer { Task { await cli.stop() } }
        let login = try await cli.loginWithDeviceCode(
            [
                "login", "dev", "--issuer", cli.issuer, "--device", "--name", "mallory", "--calendar", "google",
                "--scope", "openid email profile offline_access https://www.googleapis.com/auth/calendar.readonly",
            ],
            as: FormBrowser(username: "mallory", password: "secret")
        )
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stderr.contains("Signed in to 'mallory' as"), "\(login.stderr)")
        Self.expectInert(login.stdout, "login")
        Self.expectInert(login.stderr, "login (standard error)")

        // What an earlier run kept of what the provider said.
        let at = ISO8601DateFormatter().string(from: Date())
        let statusFile: [String: Any] = ["mallory": ["lastError": "Refused: \(Self.hostile)", "at": at]]
        try JSONSerialization.data(withJSONObject: statusFile)
            .write(to: cli.home.appendingPathComponent("status.json"))
        let calendarFile: [String: Any] = [
            "mallory": ["state": "offline\(Self.hostile)", "error": "Failed: \(Self.hostile)", "since": at]
        ]
        try JSONSerialization.data(withJSONObject: calendarFile)
            .write(to: cli.home.appendingPathComponent("calendar-status.json"))

        let status = try await cli.run(["status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("Refused:"), "\(status.stdout)")
        #expect(status.stdout.contains("@ex"), "the account's domain: \(status.stdout)")
        Self.expectInert(status.stdout, "status")
        Self.expectInert(status.stderr, "status (standard error)")

        let sources = try await cli.run(["calendar", "sources"])
        #expect(sources.status == 0, "\(sources.stderr)")
        #expect(sources.stdout.contains("Failed:"), "\(sources.stdout)")
        Self.expectInert(sources.stdout, "calendar sources")
        Self.expectInert(sources.stderr, "calendar sources (standard error)")

        // --json stays exact.
        let json = try await cli.json(["status", "--json"])
        let row = try #require((json.object as? [[String: Any]])?.first)
        #expect(row["lastError"] as? String == "Refused: \(Self.hostile)")
        #expect((row["account"] as? String)?.hasPrefix("\u{1B}***@ex\u{1B}[2J") == true, "\(row)")
    }
}

/// ``Format/table(_:)`` called directly: the one place every cell of a table passes.
struct FormatTableTests {
    @Test func cellsAreMadeSafeAndAlignedByTheirDisplayWidth() {
        let rows = [
            Format.cells(["NAME", "TITLE", "END"]),
            Format.cells(["a", "日本語の会議", "x"]),
            Format.cells(["b", "\u{1B}[2Jhi\r\nFAKE", "y"]),
            Format.cells(["c", "🙂🙂", "z"]),
        ]
        let lines = Format.table(rows)
        #expect(
            lines == [
                "NAME  TITLE         END",
                "a     日本語の会議  x",
                "b     \u{FFFD}[2Jhi FAKE   y",
                "c     🙂🙂          z",
            ]
        )
    }

    @Test func stylesAreDrawnAroundTheSafeTextAndNotCounted() {
        let style = Style(enabled: true)
        let lines = Format.table([
            [Format.Cell("connected", style: style.state), Format.Cell("1")],
            [Format.Cell("\u{1B}[31mx", style: style.bold), Format.Cell("2")],
        ])
        #expect(lines == ["\u{1B}[32mconnected\u{1B}[0m  1", "\u{1B}[1m\u{FFFD}[31mx\u{1B}[0m     2"])
    }
}
