/// Follows the page tokens (Google `nextPageToken`) or links (Graph `@odata.nextLink`) of one listing, and stops
/// one that would never end: a token the listing already gave, or more pages than the configured cap.
///
/// The server chooses its tokens, so the trail keeps only their hashes (a process-seeded `Hasher`): a listing of
/// the cap's length costs a few kilobytes whatever the tokens' size.
struct PageTrail {
    /// The source, named in the error.
    let source: CalendarSourceID
    /// The API, named in the error: "Google Calendar", "Microsoft Graph".
    let api: String
    /// What is listed, for the error: "events", "calendars", "changes".
    let listing: String
    /// What the API calls the way to the next page, for the error: "page token", "@odata.nextLink".
    let marker: String
    /// The most pages one listing may have.
    let limit: Int
    /// The pages read so far.
    private(set) var pages = 0
    private var seen: Set<Int> = []

    init(source: CalendarSourceID, api: String, listing: String, marker: String, limit: Int) {
        self.source = source
        self.api = api
        self.listing = listing
        self.marker = marker
        self.limit = max(limit, 1)
    }

    /// Counts a page that was read, and checks the token or link it gave for the next one.
    /// - Parameter token: The page's next token or link; `nil` or empty when the listing ends.
    /// - Returns: The token to read next, or `nil` when the listing ended.
    /// - Throws: ``CalendarError/api`` when the token was given before (the listing would loop), or when another
    ///   page would pass the limit.
    mutating func next(after token: String?) throws -> String? {
        pages += 1
        guard let token, !token.isEmpty else { return nil }
        guard seen.insert(token.hashValue).inserted else {
            throw CalendarError.api.with(
                message: "\(api) gave '\(source)' a \(marker) it had given before (after page \(pages) of the "
                    + "\(listing)); the listing was stopped"
            )
        }
        guard pages < limit else {
            throw CalendarError.api.with(
                message: "\(api) gave '\(source)' more than \(limit) pages of \(listing); the listing was stopped"
            )
        }
        return token
    }
}
