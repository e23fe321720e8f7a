/// Which of a source's calendars are read: the source's default ones, every calendar (those added later too), or
/// the calendars named.
///
/// The default is what the provider itself shows: for Google Calendar the primary calendar and those whose
/// calendar list entry is `selected` ("shown in the calendar UI", <doc:ChoosingCalendars>); for Microsoft Graph
/// the default calendar (`isDefaultCalendar`), since Graph marks no other calendar as shown.
///
/// ```swift
/// try await connections.select(.all, for: "work-outlook")
/// try await connections.select(.calendars(["AAMkAGI2…", "AAMkAGI3…"]), for: "work-outlook")
/// try await connections.select(.default, for: "work-outlook")
/// ```
///
/// It is kept as JSON: `"default"`, `"all"`, or an array of identifiers — the form a set of identifiers had
/// before, so that a selection stored as a set still reads.
public struct CalendarSelection: Sendable, Hashable, Codable, CustomStringConvertible {
    private enum Choice: Sendable, Hashable {
        case byDefault
        case all
        case only(Set<String>)
    }

    private let choice: Choice

    private init(_ choice: Choice) { self.choice = choice }

    /// The source's default calendars: Google's primary and `selected` calendars, Graph's default calendar.
    public static let `default` = CalendarSelection(.byDefault)
    /// Every calendar the source lists, including those that appear later.
    public static let all = CalendarSelection(.all)

    /// The calendars with these identifiers, and no others.
    /// - Parameter identifiers: The calendars' identifiers (``CalendarInfo/id``).
    /// - Returns: The selection.
    public static func calendars(_ identifiers: Set<String>) -> CalendarSelection {
        CalendarSelection(.only(identifiers))
    }

    /// The selection a set of identifiers stood for before this type: `nil` is the default.
    init(_ identifiers: Set<String>?) {
        self.init(identifiers.map(Choice.only) ?? .byDefault)
    }

    /// Whether this is the source's default.
    public var isDefault: Bool { choice == .byDefault }

    /// Whether every calendar is read, including those that appear later.
    public var includesEveryCalendar: Bool { choice == .all }

    /// The identifiers named, when the calendars were chosen one by one; `nil` for ``CalendarSelection/default`` and ``CalendarSelection/all``.
    public var calendarIDs: Set<String>? {
        if case .only(let identifiers) = choice { return identifiers }
        return nil
    }

    /// Whether the selection reads `calendar`, judged by the calendar alone: for ``CalendarSelection/default``, whether it is the
    /// primary calendar or one the provider marks as shown.
    /// - Parameter calendar: The calendar.
    /// - Returns: Whether it is read.
    public func includes(_ calendar: CalendarInfo) -> Bool {
        switch choice {
        case .byDefault: calendar.isPrimary || calendar.isSelectedByDefault == true
        case .all: true
        case .only(let identifiers): identifiers.contains(calendar.id)
        }
    }

    /// The calendars of `available` that are read, in their order. For ``CalendarSelection/default``, when the provider marks none
    /// as primary or shown, the first calendar.
    /// - Parameter available: The calendars the source lists (``CalendarSource/calendars()``).
    /// - Returns: The calendars read.
    public func chosen(from available: [CalendarInfo]) -> [CalendarInfo] {
        let chosen = available.filter(includes)
        if choice == .byDefault, chosen.isEmpty { return Array(available.prefix(1)) }
        return chosen
    }

    /// `default`, `all`, or `calendars(N)` — the number of calendars, not their identifiers.
    public var description: String {
        switch choice {
        case .byDefault: "default"
        case .all: "all"
        case .only(let identifiers): "calendars(\(identifiers.count))"
        }
    }

    /// Reads `"default"`, `"all"`, or an array of identifiers.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let word = try? container.decode(String.self) {
            switch word {
            case "default": self.init(.byDefault)
            case "all": self.init(.all)
            default:
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription: "A calendar selection is \"default\", \"all\" or an array of identifiers"
                )
            }
            return
        }
        self.init(.only(try container.decode(Set<String>.self)))
    }

    /// Writes `"default"`, `"all"`, or the identifiers as a sorted array.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch choice {
        case .byDefault: try container.encode("default")
        case .all: try container.encode("all")
        case .only(let identifiers): try container.encode(identifiers.sorted())
        }
    }
}

/// What one sync of a source reads: the calendars listed that the selection takes, and those it expected but the
/// source no longer lists.
struct CalendarReadPlan {
    /// The calendars to read, in the source's order.
    var read: [CalendarInfo]
    /// The calendars the selection names, or the last sync read, that the source no longer lists — with the last
    /// name they were known by.
    var missing: [CalendarInfo]

    /// The plan for `selection` over the calendars `available` now, after a sync that left `previous`.
    ///
    /// Calendars chosen by identifier are missing while the selection names them. Under ``CalendarSelection/all``
    /// and ``CalendarSelection/default`` a calendar the last sync read and the list no longer has is missing once:
    /// the next sync no longer expects it.
    init(_ selection: CalendarSelection, available: [CalendarInfo], previous: CalendarSyncState) {
        read = selection.chosen(from: available)
        let listed = Set(available.map(\.id))
        let expected = selection.calendarIDs.map { Array($0) } ?? Array(previous.calendars.keys)
        missing = expected.filter { !listed.contains($0) }.sorted().map { id in
            previous.calendars[id]?.info ?? CalendarInfo(id: id, name: id)
        }
    }
}
