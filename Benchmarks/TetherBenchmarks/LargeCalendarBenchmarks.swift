import Foundation
import Hummingbird
import Logging
import NIOCore
import Tether
import TetherCalendar
import TetherTesting
import TetherURLSession

#if canImport(Glibc)
import Glibc
#endif

/// A calendar of 100,000 events through ``CalendarConnections``: fetched from a loopback stand-in for the Google
/// Calendar API, decoded, cached in a sealed ``CalendarCache`` and listed — then fetched again three times
/// (incremental syncs with no change), then once more by new connections over the same cache, as the next launch of
/// an app or of `tether calendar events` does. Wall time and peak resident memory per step.
///
/// The stand-in builds each page from its number when asked, so the server holds nothing and the process's memory
/// is the client's. Peak memory is the kernel's high-water mark (`VmHWM`), reset before each step through
/// `/proc/self/clear_refs`; the live heap after each step is glibc's count of bytes allocated and not freed (Linux).
enum LargeCalendarBenchmarks {
    static func run(events total: Int) async throws {
        let pageSize = 250
        let server = try await startStandIn(events: total, pageSize: pageSize)
        defer { server.task.cancel() }
        let issuer = TestIssuer()
        let session = Session(id: "bench", store: MemoryStore(), refresher: issuer, logger: Benchmarks.silent)
        try await session.signIn(account: Benchmarks.account, tokens: try Benchmarks.freshTokens(issuer))
        let transport = URLSessionTransport(configuration: HTTPTransportConfiguration(maximumResponseSize: 8 << 20))
        let google = GoogleCalendarClient(
            session: session,
            transport: transport,
            id: "large",
            configuration: GoogleCalendarClient.Configuration(
                baseURL: URL(string: "http://127.0.0.1:\(server.port)/calendar/v3")!,
                pageSize: pageSize
            ),
            logger: Benchmarks.silent
        )
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tether-bench-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let vault = try VaultStore(directory: directory, key: .generate(), logger: Benchmarks.silent)
        let window = DateInterval(start: epoch, duration: Double(total) * spacing + 86_400)
        let utc = TimeZone(identifier: "UTC")!

        print("Large calendar: \(total) events, pages of \(pageSize), loopback stand-in (Google Calendar API v3)")
        print(
            "    resident before: \(megabytes(Memory.resident())) MB, live heap \(Memory.liveHeap().map(megabytes) ?? "?") MB"
        )
        var connections = CalendarConnections(
            sources: [google],
            cache: try CalendarCache(vault: vault),
            timeZone: utc,
            logger: Benchmarks.silent
        )
        try await step("first fetch: full sync, decode, cache, list", expecting: total) {
            await connections.fetch(window: window)
        }
        // Fetches that change nothing must not make the process grow.
        for round in 2...4 {
            try await step("fetch \(round): incremental sync, no change, cache, list", expecting: total) {
                await connections.fetch(window: window)
            }
        }
        // The next launch: new connections over the same cache.
        connections = CalendarConnections(
            sources: [google],
            cache: try CalendarCache(vault: vault),
            timeZone: utc,
            logger: Benchmarks.silent
        )
        try await step("next launch: cache read and listed, no network", expecting: total) {
            await connections.loadCached(window: window)
        }
        try await step("next launch: incremental sync, cache, list", expecting: total) {
            await connections.fetch(window: window)
        }
        // The source's files: its header (`fileURL(for:)`), its events file and any amendment, which share the
        // header's name up to its extension.
        let header = try CalendarCache(vault: vault).fileURL(for: "large")
        let prefix = header.deletingPathExtension().lastPathComponent
        let folder = header.deletingLastPathComponent()
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasPrefix(prefix + ".") }
        let size = try names.reduce(0) { total, name in
            let path = folder.appendingPathComponent(name).path
            return total + ((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
        }
        print("    cache files: \(megabytes(size)) MB")
    }

    /// Runs one step, then prints its wall time, its peak resident memory and the resident memory after it.
    static func step(
        _ name: String,
        expecting count: Int,
        _ body: () async -> CalendarFetchResult
    ) async throws {
        Memory.resetPeak()
        let clock = ContinuousClock()
        let start = clock.now
        let result = await body()
        let elapsed = Benchmarks.nanoseconds(clock.now - start) / 1e9
        let peak = Memory.peak()
        guard result.events.count == count, result.sources.allSatisfy({ $0.error == nil && $0.skipped.isEmpty })
        else {
            throw OAuthBenchmarks.BenchmarkError(
                "\(name): \(result.events.count) events of \(count), \(result.sources.map(\.error))"
            )
        }
        let rounded = (elapsed * 100).rounded() / 100
        let live = Memory.liveHeap().map { "\(megabytes($0)) MB" } ?? "?"
        print(
            "    \(name): \(rounded) s, peak resident \(megabytes(peak)) MB, after \(megabytes(Memory.resident())) MB, "
                + "live heap after \(live)"
        )
    }

    static func megabytes(_ bytes: Int) -> String { String(Int((Double(bytes) / 1_048_576).rounded())) }

    // MARK: The stand-in

    static let epoch = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
    /// Between the starts of two events: 5 minutes, so that 100,000 events span about a year.
    static let spacing = 300.0

    /// Serves `GET …/users/me/calendarList` (one primary calendar) and `GET …/calendars/primary/events`: without a
    /// sync token, `events` generated events in pages of `pageSize` (the page number is the page token), the last
    /// page with a `nextSyncToken`; with one, an empty page of changes.
    static func startStandIn(events: Int, pageSize: Int) async throws -> (port: Int, task: Task<Void, Never>) {
        let router = Router()
        router.get("/calendar/v3/users/me/calendarList") { _, _ in
            json(#"{"items":[{"id":"primary","summary":"Large","primary":true,"timeZone":"UTC"}]}"#)
        }
        router.get("/calendar/v3/calendars/primary/events") { request, _ in
            if request.uri.queryParameters.get("syncToken") != nil {
                return json(#"{"items":[],"nextSyncToken":"sync-2"}"#)
            }
            let page = request.uri.queryParameters.get("pageToken").flatMap(Int.init) ?? 0
            let first = page * pageSize
            let last = min(first + pageSize, events)
            var text = #"{"kind":"calendar#events","timeZone":"UTC","items":["#
            for index in first..<last {
                if index > first { text += "," }
                text += event(index)
            }
            text += last < events ? #"],"nextPageToken":"\#(page + 1)"}"# : #"],"nextSyncToken":"sync-1"}"#
            return json(text)
        }
        return try await Benchmarks.startServer(router)
    }

    static func json(_ text: String) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text))
        )
    }

    /// Event `index`: the mix of the calendar benchmarks — timed with a zone, all-day, a recurring instance, a
    /// tentative one with an HTML description.
    static func event(_ index: Int) -> String {
        let start = epoch.addingTimeInterval(Double(index) * spacing)
        let end = start.addingTimeInterval(spacing)
        let from = rfc3339(start)
        let to = rfc3339(end)
        switch index % 4 {
        case 0:
            return
                #"{"kind":"calendar#event","id":"ev\#(index)","status":"confirmed","summary":"Design review \#(index)","location":"Room 4.12","start":{"dateTime":"\#(from)","timeZone":"Europe/Berlin"},"end":{"dateTime":"\#(to)","timeZone":"Europe/Berlin"},"updated":"2025-02-27T16:40:02.311Z","htmlLink":"https://www.google.com/calendar/event?eid=ev\#(index)","organizer":{"email":"bob@example.com","displayName":"Bob"}}"#
        case 1:
            let day = String(from.prefix(10))
            let next = String(rfc3339(start.addingTimeInterval(86_400)).prefix(10))
            return
                #"{"kind":"calendar#event","id":"ev\#(index)","status":"confirmed","summary":"Offsite \#(index)","start":{"date":"\#(day)"},"end":{"date":"\#(next)"}}"#
        case 2:
            return
                #"{"kind":"calendar#event","id":"weekly_\#(index)","status":"confirmed","summary":"Standup","recurringEventId":"weekly","start":{"dateTime":"\#(from)","timeZone":"America/New_York"},"end":{"dateTime":"\#(to)","timeZone":"America/New_York"}}"#
        default:
            return
                #"{"kind":"calendar#event","id":"ev\#(index)","status":"tentative","summary":"Flight UA 857","description":"Confirmation <b>ABC\#(index)</b><br>Departure SFO 11:25 &amp; arrival PEK","start":{"dateTime":"\#(from)"},"end":{"dateTime":"\#(to)"}}"#
        }
    }

    static func rfc3339(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970)
        let days = seconds / 86_400
        let rest = seconds % 86_400
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = z / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(rest / 3_600)):\(two(rest % 3_600 / 60)):\(two(rest % 60))Z"
    }
}

/// The process's resident memory, from `/proc/self/status` (Linux; 0 elsewhere).
enum Memory {
    /// `VmRSS`: resident now, in bytes.
    static func resident() -> Int { field("VmRSS:") }
    /// `VmHWM`: the peak since the start or the last ``resetPeak()``, in bytes.
    static func peak() -> Int { field("VmHWM:") }

    /// The bytes allocated and not freed, whatever the allocator keeps besides: glibc's `malloc_stats()` total
    /// "in use bytes" (all arenas and mapped chunks), read back from standard error; `nil` elsewhere. Resident
    /// memory also counts what the allocator keeps after a free, so only this tells what the process still holds.
    static func liveHeap() -> Int? {
        #if canImport(Glibc)
        // `malloc_stats` is declared in <malloc.h>, which the Glibc module does not include.
        guard let symbol = dlsym(nil, "malloc_stats") else { return nil }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tether-malloc-\(getpid())").path
        let file = open(path, O_CREAT | O_TRUNC | O_RDWR, 0o600)
        guard file >= 0 else { return nil }
        defer {
            close(file)
            unlink(path)
        }
        fflush(nil)
        let saved = dup(2)
        dup2(file, 2)
        unsafeBitCast(symbol, to: (@convention(c) () -> Void).self)()
        fflush(nil)
        dup2(saved, 2)
        close(saved)
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let total = text.range(of: "Total (incl. mmap):"),
            let line = text[total.upperBound...].split(separator: "\n").first(where: { $0.contains("in use bytes") })
        else { return nil }
        return line.split(separator: "=").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        #else
        return nil
        #endif
    }

    /// Resets the peak to the resident memory now (`echo 5 > /proc/self/clear_refs`).
    static func resetPeak() {
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
    }

    private static func field(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            let value = line.dropFirst(name.count).split { $0 == " " || $0 == "\t" }.first
            let kilobytes = value.flatMap { Int($0) } ?? 0
            return kilobytes * 1_024
        }
        return 0
    }
}
