import Foundation

/// A page the calendar clients read with a ``JSONScanner`` instead of `JSONDecoder`: only the members the client
/// uses are read, everything else is checked for syntax and skipped.
///
/// The result must equal what `JSONDecoder` gives for the same text, failures included: a document that is not
/// JSON or not the page's shape throws a `DecodingError`, and an element read through ``Lossy`` keeps the
/// `DecodingError` that `JSONDecoder` would have thrown for it (same kind, same coding path), so that skipped events
/// are reported alike.
protocol ScannedJSON: Decodable {
    /// Reads a page.
    /// - Throws: `DecodingError`.
    init(scanning data: Data) throws
}

extension GoogleWire.EventsPage: ScannedJSON {
    /// Reads an `events.list` page: `items` (each event as ``Lossy``), `nextPageToken`, `nextSyncToken`, `summary`
    /// and `timeZone`.
    init(scanning data: Data) throws {
        self = try GoogleScanning.scan(data) { scanner throws(GoogleScanning.Failure) in
            try GoogleScanning.page(&scanner)
        }
    }
}

/// The readers of ``GoogleWire`` shapes over a ``JSONScanner``.
enum GoogleScanning {
    /// Either the text is not JSON (the whole document fails) or a value has the wrong type where the shape allows
    /// no failure (the page itself).
    enum Failure: Error {
        case syntax(JSONScanner.Failure)
        case decoding(DecodingError)
    }

    /// A coding key for the paths of the errors.
    struct Key: CodingKey {
        let stringValue: String
        let intValue: Int?

        init(stringValue: String) {
            self.stringValue = stringValue
            intValue = nil
        }

        init(intValue: Int) {
            stringValue = "Index \(intValue)"
            self.intValue = intValue
        }
    }

    /// Where a value sits: in the page, or in the event at `index` of `items`, one or two members deep. The coding
    /// path is built only for an error.
    struct Path {
        var index: Int?
        var first: String?
        var second: String?

        /// The path one member deeper.
        func appending(_ name: String) -> Path {
            first == nil ? Path(index: index, first: name) : Path(index: index, first: first, second: name)
        }

        /// The path as `JSONDecoder` reports it: `items`, `Index n`, then the members.
        var codingPath: [any CodingKey] {
            var keys: [any CodingKey] = []
            if let index { keys += [Key(stringValue: "items"), Key(intValue: index)] }
            if let first { keys.append(Key(stringValue: first)) }
            if let second { keys.append(Key(stringValue: second)) }
            return keys
        }
    }

    /// Runs `body` over the bytes of `data`, turning a syntax failure into the `DecodingError` `JSONDecoder` throws.
    static func scan<Result>(
        _ data: Data,
        _ body: (inout JSONScanner) throws(Failure) -> Result
    ) throws(DecodingError) -> Result {
        let outcome: Swift.Result<Result, Failure> = data.withUnsafeBytes { raw in
            var scanner = JSONScanner(raw.bindMemory(to: UInt8.self))
            do throws(Failure) {
                let result = try body(&scanner)
                do throws(JSONScanner.Failure) { try scanner.finish() } catch { throw .syntax(error) }
                return .success(result)
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let result):
            return result
        case .failure(.syntax(let failure)):
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: [],
                    debugDescription: "The given data was not valid JSON.",
                    underlyingError: failure
                )
            )
        case .failure(.decoding(let error)):
            throw error
        }
    }

    // MARK: The page

    static func page(_ scanner: inout JSONScanner) throws(Failure) -> GoogleWire.EventsPage {
        var page = GoogleWire.EventsPage()
        do {
            guard try scanner.peekKind() == .object else {
                throw Failure.decoding(mismatch([String: Any].self, Path(), found: try scanner.peekKind()))
            }
            try scanner.enterObject()
            var first = true
            while let key = try scanner.nextKey(first: first) {
                first = false
                if scanner.matches(key, "items") {
                    page.items = try items(&scanner)
                } else if scanner.matches(key, "nextPageToken") {
                    page.nextPageToken = try pageString(&scanner, "nextPageToken")
                } else if scanner.matches(key, "nextSyncToken") {
                    page.nextSyncToken = try pageString(&scanner, "nextSyncToken")
                } else if scanner.matches(key, "summary") {
                    page.summary = try pageString(&scanner, "summary")
                } else if scanner.matches(key, "timeZone") {
                    page.timeZone = try pageString(&scanner, "timeZone")
                } else {
                    try scanner.skipValue()
                }
            }
        } catch let failure as JSONScanner.Failure {
            throw .syntax(failure)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .syntax(JSONScanner.Failure(offset: scanner.index, reason: "\(error)"))
        }
        return page
    }

    /// A string member of the page: `null` is `nil`, another type fails the page.
    private static func pageString(_ scanner: inout JSONScanner, _ name: String) throws -> String? {
        switch try string(&scanner, Path(first: name)) {
        case .absent: nil
        case .value(let text): text
        case .failed(let error): throw Failure.decoding(error)
        }
    }

    private static func items(_ scanner: inout JSONScanner) throws -> [Lossy<GoogleWire.Event>]? {
        let kind = try scanner.peekKind()
        if kind == .null {
            _ = try scanner.skipNull()
            return nil
        }
        guard kind == .array else {
            throw Failure.decoding(mismatch([Any].self, Path(first: "items"), found: kind))
        }
        try scanner.enterArray()
        var result: [Lossy<GoogleWire.Event>] = []
        var first = true
        while try scanner.hasNextElement(first: first) {
            first = false
            result.append(try event(&scanner, index: result.count))
        }
        return result
    }

    // MARK: Events

    /// A member's value as read: absent, a value (`nil` for `null`), or the error `JSONDecoder` would throw for it.
    enum Slot<Value> {
        case absent
        case value(Value?)
        case failed(DecodingError)

        /// The value, `nil` when absent or `null`.
        func get() throws(DecodingError) -> Value? {
            switch self {
            case .absent: nil
            case .value(let value): value
            case .failed(let error): throw error
            }
        }
    }

    /// One element of `items`; its failure is kept in the ``Lossy`` value, never thrown.
    static func event(_ scanner: inout JSONScanner, index: Int) throws -> Lossy<GoogleWire.Event> {
        let path = Path(index: index)
        let kind = try scanner.peekKind()
        guard kind == .object else {
            try scanner.skipValue()
            return Lossy(result: .failure(mismatch([String: Any].self, path, found: kind)), id: nil)
        }
        var id = Slot<String>.absent
        var status = Slot<String>.absent
        var summary = Slot<String>.absent
        var description = Slot<String>.absent
        var location = Slot<String>.absent
        var start = Slot<GoogleWire.EventDateTime>.absent
        var end = Slot<GoogleWire.EventDateTime>.absent
        var recurringEventId = Slot<String>.absent
        var updated = Slot<String>.absent
        var htmlLink = Slot<String>.absent
        var organizer = Slot<GoogleWire.Person>.absent
        try scanner.enterObject()
        var first = true
        while let key = try scanner.nextKey(first: first) {
            first = false
            if scanner.matches(key, "id") {
                id = try string(&scanner, path.appending("id"))
            } else if scanner.matches(key, "status") {
                status = try string(&scanner, path.appending("status"))
            } else if scanner.matches(key, "summary") {
                summary = try string(&scanner, path.appending("summary"))
            } else if scanner.matches(key, "description") {
                description = try string(&scanner, path.appending("description"))
            } else if scanner.matches(key, "location") {
                location = try string(&scanner, path.appending("location"))
            } else if scanner.matches(key, "start") {
                start = try dateTime(&scanner, path.appending("start"))
            } else if scanner.matches(key, "end") {
                end = try dateTime(&scanner, path.appending("end"))
            } else if scanner.matches(key, "recurringEventId") {
                recurringEventId = try string(&scanner, path.appending("recurringEventId"))
            } else if scanner.matches(key, "updated") {
                updated = try string(&scanner, path.appending("updated"))
            } else if scanner.matches(key, "htmlLink") {
                htmlLink = try string(&scanner, path.appending("htmlLink"))
            } else if scanner.matches(key, "organizer") {
                organizer = try person(&scanner, path.appending("organizer"))
            } else {
                try scanner.skipValue()
            }
        }
        // `Lossy` reads the identifier on its own, whatever else fails.
        let readableID: String? = if case .value(let text) = id { text } else { nil }
        do throws(DecodingError) {
            // In the order of the members' declarations, as the synthesized `init(from:)` decodes them.
            let event = GoogleWire.Event(
                id: try required(id, path, "id"),
                status: try status.get(),
                summary: try summary.get(),
                description: try description.get(),
                location: try location.get(),
                start: try start.get(),
                end: try end.get(),
                recurringEventId: try recurringEventId.get(),
                updated: try updated.get(),
                htmlLink: try htmlLink.get(),
                organizer: try organizer.get()
            )
            return Lossy(result: .success(event), id: readableID)
        } catch {
            return Lossy(result: .failure(error), id: readableID)
        }
    }

    private static func required(_ slot: Slot<String>, _ path: Path, _ name: String) throws(DecodingError) -> String {
        switch slot {
        case .value(let text?): return text
        case .value(nil):
            throw DecodingError.valueNotFound(
                String.self,
                DecodingError.Context(
                    codingPath: path.appending(name).codingPath,
                    debugDescription: "Cannot get value of type String -- found null value instead"
                )
            )
        case .absent:
            throw DecodingError.keyNotFound(
                Key(stringValue: name),
                DecodingError.Context(
                    codingPath: path.codingPath,
                    debugDescription: "No value associated with key \(name)"
                )
            )
        case .failed(let error): throw error
        }
    }

    private static func dateTime(
        _ scanner: inout JSONScanner,
        _ path: Path
    ) throws -> Slot<GoogleWire.EventDateTime> {
        try object(&scanner, path) { scanner, key throws in
            switch key {
            case _ where scanner.matches(key, "date"): (0, try string(&scanner, path.appending("date")))
            case _ where scanner.matches(key, "dateTime"):
                (1, try string(&scanner, path.appending("dateTime")))
            case _ where scanner.matches(key, "timeZone"):
                (2, try string(&scanner, path.appending("timeZone")))
            default: nil
            }
        } build: { values throws(DecodingError) in
            GoogleWire.EventDateTime(
                date: try values[0].get(),
                dateTime: try values[1].get(),
                timeZone: try values[2].get()
            )
        }
    }

    private static func person(_ scanner: inout JSONScanner, _ path: Path) throws -> Slot<GoogleWire.Person> {
        try object(&scanner, path) { scanner, key throws in
            switch key {
            case _ where scanner.matches(key, "email"): (0, try string(&scanner, path.appending("email")))
            case _ where scanner.matches(key, "displayName"):
                (1, try string(&scanner, path.appending("displayName")))
            default: nil
            }
        } build: { values throws(DecodingError) in
            GoogleWire.Person(email: try values[0].get(), displayName: try values[1].get())
        }
    }

    /// The string members of a nested object, at most three, by position in declaration order.
    struct Members {
        private var first = Slot<String>.absent
        private var second = Slot<String>.absent
        private var third = Slot<String>.absent

        subscript(position: Int) -> Slot<String> {
            get { position == 0 ? first : position == 1 ? second : third }
            set {
                switch position {
                case 0: first = newValue
                case 1: second = newValue
                default: third = newValue
                }
            }
        }
    }

    /// A nested object of string members: `read` reads a member it knows and says which it was (in declaration
    /// order), `build` makes the value from them.
    private static func object<Value>(
        _ scanner: inout JSONScanner,
        _ path: Path,
        read: (inout JSONScanner, JSONScanner.Key) throws -> (Int, Slot<String>)?,
        build: (Members) throws(DecodingError) -> Value
    ) throws -> Slot<Value> {
        let kind = try scanner.peekKind()
        if kind == .null {
            _ = try scanner.skipNull()
            return .value(nil)
        }
        guard kind == .object else {
            try scanner.skipValue()
            return .failed(mismatch([String: Any].self, path, found: kind))
        }
        try scanner.enterObject()
        var values = Members()
        var first = true
        while let key = try scanner.nextKey(first: first) {
            first = false
            if let (position, value) = try read(&scanner, key) {
                values[position] = value
            } else {
                try scanner.skipValue()
            }
        }
        do throws(DecodingError) {
            return .value(try build(values))
        } catch {
            return .failed(error)
        }
    }

    /// A string member: `null` is `nil`; another type is the `typeMismatch` `JSONDecoder` throws.
    static func string(_ scanner: inout JSONScanner, _ path: Path) throws(JSONScanner.Failure) -> Slot<String> {
        switch try scanner.peekKind() {
        case .string: return .value(try scanner.readString())
        case .null:
            _ = try scanner.skipNull()
            return .value(nil)
        case let kind:
            try scanner.skipValue()
            return .failed(mismatch(String.self, path, found: kind))
        }
    }

    static func mismatch(_ type: Any.Type, _ path: Path, found kind: JSONScanner.Kind) -> DecodingError {
        .typeMismatch(
            type,
            DecodingError.Context(
                codingPath: path.codingPath,
                debugDescription: "Expected to decode \(type) but found \(kind)."
            )
        )
    }
}
