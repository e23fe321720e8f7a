import Foundation

/// Opaque paging and sync tokens of the calendar APIs: base64url of `|`-separated fields with a
/// kind prefix. Clients must treat them as opaque; the provider checks the kind, the user and the
/// user's token generation.
enum CalendarToken {
    /// Google `pageToken`: the offset into the listing, the sequence the listing started at
    /// (for `nextSyncToken`) and, in incremental sync, the sequence changes are counted from.
    struct GooglePage: Equatable {
        var offset: Int
        var snapshot: Int
        var since: Int?
    }

    /// Google `syncToken` / `nextSyncToken`.
    struct GoogleSync: Equatable {
        var username: String
        var calendarID: String
        var generation: Int
        var sequence: Int
        var singleEvents: Bool
    }

    /// Graph delta state, in `$skiptoken` (a page of a round) and `$deltatoken` (the next round).
    struct GraphDelta: Equatable {
        var username: String
        var calendarID: String
        var generation: Int
        var start: Int
        var end: Int
        /// Changes after this sequence; `nil` in the initial round.
        var since: Int?
        /// The sequence the round started at; the next deltaLink continues from it.
        var snapshot: Int
        var offset: Int
        var pageSize: Int
    }

    private static func encode(_ kind: String, _ fields: [String]) -> String {
        Data(([kind] + fields).joined(separator: "|").utf8).base64URLEncodedString()
    }

    private static func decode(_ token: String, kind: String, count: Int) -> [String]? {
        guard let data = Data(base64URLEncoded: token), let text = String(data: data, encoding: .utf8) else {
            return nil
        }
        let fields = text.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == count + 1, fields[0] == kind else { return nil }
        return Array(fields.dropFirst())
    }

    static func encode(_ page: GooglePage) -> String {
        self.encode("gp1", [String(page.offset), String(page.snapshot), page.since.map(String.init) ?? ""])
    }

    static func googlePage(_ token: String) -> GooglePage? {
        guard let f = self.decode(token, kind: "gp1", count: 3), let offset = Int(f[0]), let snapshot = Int(f[1])
        else { return nil }
        return GooglePage(offset: offset, snapshot: snapshot, since: Int(f[2]))
    }

    static func encode(_ sync: GoogleSync) -> String {
        self.encode(
            "gs1",
            [
                sync.username, sync.calendarID, String(sync.generation), String(sync.sequence),
                sync.singleEvents ? "1" : "0",
            ]
        )
    }

    static func googleSync(_ token: String) -> GoogleSync? {
        guard let f = self.decode(token, kind: "gs1", count: 5), let generation = Int(f[2]), let sequence = Int(f[3])
        else { return nil }
        return GoogleSync(
            username: f[0],
            calendarID: f[1],
            generation: generation,
            sequence: sequence,
            singleEvents: f[4] == "1"
        )
    }

    static func encode(_ delta: GraphDelta, kind: String) -> String {
        self.encode(
            kind,
            [
                delta.username, delta.calendarID, String(delta.generation), String(delta.start), String(delta.end),
                delta.since.map(String.init) ?? "", String(delta.snapshot), String(delta.offset),
                String(delta.pageSize),
            ]
        )
    }

    static func graphDelta(_ token: String, kind: String) -> GraphDelta? {
        guard let f = self.decode(token, kind: kind, count: 9), let generation = Int(f[2]), let start = Int(f[3]),
            let end = Int(f[4]), let snapshot = Int(f[6]), let offset = Int(f[7]), let pageSize = Int(f[8])
        else { return nil }
        return GraphDelta(
            username: f[0],
            calendarID: f[1],
            generation: generation,
            start: start,
            end: end,
            since: Int(f[5]),
            snapshot: snapshot,
            offset: offset,
            pageSize: pageSize
        )
    }

    /// The `$skiptoken` kind.
    static let skipKind = "ms1"
    /// The `$deltatoken` kind.
    static let deltaKind = "md1"
}
