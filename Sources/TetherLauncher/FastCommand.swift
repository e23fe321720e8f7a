#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A command line the launcher may answer itself when the vault holds a fresh token: anything else (another
/// command, another option, `--help`, a repeated flag) is `nil`, and `tether-cli` runs it.
///
/// To answer another command from a fresh token (such as a credential helper's `get`), add a case, its matcher in
/// ``match(_:environment:)`` (exact words only) and its output in ``answer(environment:now:)``, formatted exactly as
/// the full command formats it; a command that reads standard input must pass what it read on when it falls back.
enum FastCommand: Equatable {
    /// `tether token [NAME] [--json]`.
    case token(connection: String?, json: Bool)

    /// The command `arguments` (the first being the executable) asks for, when the launcher may answer it.
    static func match(_ arguments: [String], environment: [String: String]) -> FastCommand? {
        guard !FastPath.loggingRequested(environment) else { return nil }
        let words = arguments.dropFirst()
        guard words.first == "token" else { return nil }
        var connection: String?
        var json = false
        for word in words.dropFirst() {
            if word == "--json", !json {
                json = true
            } else if connection == nil, !word.isEmpty, !word.hasPrefix("-"), word != "help" {
                connection = word
            } else {
                return nil
            }
        }
        return .token(connection: connection, json: json)
    }

    /// What the full command would print for this request, when the vault holds a fresh token; `nil` otherwise.
    func answer(environment: [String: String], now: Date) -> String? {
        switch self {
        case .token(let connection, let json):
            guard let fresh = FastPath.freshToken(connection: connection, environment: environment, now: now) else {
                return nil
            }
            return json ? Self.tokenJSON(fresh) : fresh.accessToken + "\n"
        }
    }

    /// `tether token --json`: `{name, accessToken, tokenType, expiresAt}`, pretty-printed with sorted keys, as the
    /// full command prints it.
    static func tokenJSON(_ fresh: FreshToken) -> String? {
        var expiresAt: String?
        if let date = fresh.expiresAt {
            // Years outside 1…9999 are written differently by `ISO8601DateFormatter`: left to `tether-cli`.
            guard let text = internetDateTime(date) else { return nil }
            expiresAt = text
        }
        let object: [String: String?] = [
            "name": fresh.connection,
            "accessToken": fresh.accessToken,
            "tokenType": fresh.tokenType,
            "expiresAt": expiresAt,
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(object) else { return nil }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// RFC 3339 in UTC, whole seconds (`2026-11-26T17:30:01Z`), as `ISO8601DateFormatter` with
    /// `.withInternetDateTime` writes it: the fraction of a second is dropped.
    static func internetDateTime(_ date: Date) -> String? {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        var days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Days to a civil date (Howard Hinnant's algorithm, proleptic Gregorian calendar).
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        guard (1...9999).contains(year) else { return nil }
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay % 3600 / 60, 2)):\(pad(secondOfDay % 60, 2))Z"
    }
}
