import Foundation

extension Itinerary {
    /// Words that, in a title or at the start of the notes, say a flight does not take place: English, French,
    /// German, Spanish, Portuguese, Italian and Dutch, folded (lower case, no accents).
    static let cancellationWords: Set<String> = [
        "cancelled", "canceled", "annule", "annulee", "annulliert", "storniert", "gestrichen", "cancelado",
        "cancelada", "cancellato", "cancellata", "geannuleerd",
    ]

    /// The same in Chinese and Japanese, matched anywhere in the text: 欠航 (flight cancelled), 已取消 (cancelled),
    /// キャンセル (cancel).
    static let cancellationPhrases = ["欠航", "已取消", "キャンセル"]

    /// Whether `event` does not take place: its status says so, or its title does, or the first line of its
    /// notes does (airline updates put it there).
    ///
    /// Further down, notes often hold conditions of carriage ("if your flight is cancelled…"), which say nothing
    /// about this flight: only the first line that is not empty counts.
    static func isCancelled(_ event: CalendarEvent) -> Bool {
        if event.status == .cancelled { return true }
        if saysCancelled(event.title) { return true }
        let firstLine = event.notes?.split(whereSeparator: \.isNewline).first { !$0.allSatisfy(\.isWhitespace) }
        return firstLine.map { saysCancelled(String($0)) } ?? false
    }

    private static func saysCancelled(_ text: String) -> Bool {
        if cancellationPhrases.contains(where: { text.contains($0) }) { return true }
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        return folded.split { !$0.isLetter }.contains { cancellationWords.contains(String($0)) }
    }
}
