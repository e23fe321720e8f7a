import Foundation

/// What one item of an events page means, for either API.
enum CalendarPageItem {
    case event(CalendarEvent)
    /// An item that removes an event: a cancelled Google item, or a Graph delta item with `@removed` (deleted,
    /// or moved out of the window).
    case removed(String)
}

extension CalendarEventBatch {
    /// A batch with nothing read yet.
    static var empty: CalendarEventBatch { CalendarEventBatch(events: [], skipped: [], pages: 0) }

    /// Adds one mapped page: its events (removal items left out) and its skipped ones.
    mutating func add(page: ([CalendarPageItem], [SkippedEvent])) {
        pages += 1
        skipped += page.1
        for case .event(let event) in page.0 { events.append(event) }
    }

    /// Decodes one events page and maps it, as the clients do.
    /// - Throws: ``CalendarError/decoding`` when the data is not a `Page`.
    static func decoding<Page: Decodable>(
        _ data: Data,
        as page: Page.Type,
        notAPage message: String,
        map: (Page) -> ([CalendarPageItem], [SkippedEvent])
    ) throws -> CalendarEventBatch {
        let decoded: Page
        do {
            decoded = try JSONDecoder().decode(Page.self, from: data)
        } catch {
            throw CalendarError.decoding.with(message: message, cause: error)
        }
        var batch = CalendarEventBatch.empty
        batch.add(page: map(decoded))
        return batch
    }

    /// Reads one events page with a ``JSONScanner`` and maps it, as the clients do.
    /// - Throws: ``CalendarError/decoding`` when the data is not a `Page`.
    static func decoding<Page: ScannedJSON>(
        _ data: Data,
        as page: Page.Type,
        notAPage message: String,
        map: (Page) -> ([CalendarPageItem], [SkippedEvent])
    ) throws -> CalendarEventBatch {
        let decoded: Page
        do {
            decoded = try Page(scanning: data)
        } catch {
            throw CalendarError.decoding.with(message: message, cause: error)
        }
        var batch = CalendarEventBatch.empty
        batch.add(page: map(decoded))
        return batch
    }
}

extension CalendarChanges {
    /// Changes with nothing read yet.
    init(isFullSync: Bool) {
        self.init(changed: [], removedIDs: [], skipped: [], cursor: "", isFullSync: isFullSync, pages: 0)
    }

    /// Adds one mapped page: its events as changed, its removal items as removed, and its skipped ones.
    mutating func add(page: ([CalendarPageItem], [SkippedEvent])) {
        pages += 1
        skipped += page.1
        for item in page.0 {
            switch item {
            case .event(let event): changed.append(event)
            case .removed(let id): removedIDs.append(id)
            }
        }
    }
}

extension CalendarSyncOutcome {
    /// Reads changes from `cursor`, or everything when it is `nil`; when the source says the cursor expired, reads
    /// everything again.
    /// - Returns: The changes and how they were read.
    static func changes(
        from cursor: String?,
        _ read: (String?) async throws -> CalendarChanges
    ) async throws -> (CalendarChanges, Mode) {
        do {
            return (try await read(cursor), cursor == nil ? .full : .incremental)
        } catch let error as CalendarError where error == .syncStateExpired && cursor != nil {
            return (try await read(nil), .resynced)
        }
    }

    /// Applies `changes` to `entry`, keeps the calendar's new state, and counts what changed.
    /// - Parameters:
    ///   - changes: What was read; a full read replaces the kept events.
    ///   - mode: How it was read.
    ///   - entry: The calendar's state before.
    ///   - window: The window the kept events are bound to, if any.
    ///   - keep: Whether a changed event is kept; one it refuses is removed.
    mutating func apply(
        _ changes: CalendarChanges,
        mode: Mode,
        to entry: CalendarSyncState.Calendar,
        window: DateInterval?,
        keeping keep: (CalendarEvent) -> Bool = { _ in true }
    ) {
        var entry = entry
        // A sync that read no change leaves the events as they are: still in the cache, not decoded (see
        // `CalendarEventStorage`).
        if changes.isFullSync || !changes.removedIDs.isEmpty || !changes.changed.isEmpty {
            var events = changes.isFullSync ? [:] : entry.events
            events.reserveCapacity(events.count + changes.changed.count)
            for id in changes.removedIDs where events.removeValue(forKey: id) != nil { removed += 1 }
            for event in changes.changed {
                if keep(event) {
                    events[event.id] = event
                } else if events.removeValue(forKey: event.id) != nil {
                    removed += 1
                }
            }
            entry.events = events
        }
        entry.keepSkipped(changes)
        entry.cursor = changes.cursor
        entry.window = window
        record(entry, mode: mode, changed: changes.changed.count, skipped: changes.skipped)
    }

    /// Keeps a calendar's new state and counts what changed.
    mutating func record(
        _ entry: CalendarSyncState.Calendar,
        mode: Mode,
        changed: Int,
        skipped: [SkippedEvent]
    ) {
        self.changed += changed
        self.skipped += skipped
        modes[entry.info.id] = mode
        state.calendars[entry.info.id] = entry
    }
}
