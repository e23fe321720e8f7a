#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A command line the launcher may answer itself when the vault holds a fresh token (`--allow-login` changes nothing
/// then: a fresh token needs no sign-in): anything else (another
/// command, another option, `--help`, a repeated flag, an `--option=value` form) is `nil`, and `tether-cli` runs it.
///
/// To answer another command from a fresh token, add a case, its matcher in ``match(_:environment:)`` (exact words
/// only) and its output in ``answer(environment:now:)``, formatted exactly as the full command formats it. A
/// command that reads standard input reads it only once the vault is open (``VaultAccess``), and hands what it read
/// on when it falls back (``Outcome/fallBack(_:)``).
enum FastCommand: Equatable {
    /// `tether token [NAME [OPERATION [HOST]]] [--json] [--format F] [--variable V] [--host H]…`.
    case token(TokenCall)
    /// `tether git-credential get [--connection NAME] [--username USER]`, also as `git-credential-tether get`.
    case gitCredentialGet(connection: String?, username: String?)
    /// `tether kube-credential [NAME] [--token id|access]`.
    case kubeCredential(connection: String?, idToken: Bool)
    /// `tether docker-credential get`, also as `docker-credential-tether get`.
    case dockerCredentialGet

    /// What `tether token` was asked for.
    struct TokenCall: Equatable {
        var connection: String?
        var operation: String?
        var operationHost: String?
        var format: TokenFormat
        var variable: String
        var hosts: [String]
    }

    /// `tether token --format`.
    enum TokenFormat: String {
        case token, json, header, env, bazel, terraform
    }

    /// How a request ended in the launcher.
    enum Outcome {
        /// Print this and exit 0.
        case answered(String)
        /// Run `tether-cli`; with the standard input read so far, which it must get instead.
        case fallBack(StandardInput?)
    }

    /// The longest input each helper's full command takes (`HelperInput.read(limit:)`).
    static let gitInputLimit = 1 << 20
    static let dockerInputLimit = 8192
    static let tokenInputLimit = 64 * 1024

    /// The command `arguments` (the first being the executable) asks for, when the launcher may answer it.
    static func match(_ arguments: [String], environment: [String: String]) -> FastCommand? {
        guard !FastPath.loggingRequested(environment) else { return nil }
        let words = commandWords(arguments)
        switch words.first {
        case "token":
            guard
                let parsed = ParsedWords(
                    words.dropFirst(),
                    options: ["--format", "--variable", "--host"],
                    repeatable: ["--host"],
                    flags: ["--json", "--allow-login"]
                ), parsed.positionals.count <= 3
            else { return nil }
            let json = parsed.flags.contains("--json")
            let given = parsed.options["--format"]?.first
            let format: TokenFormat
            if let given {
                guard let named = TokenFormat(rawValue: given.lowercased()), !json || named == .json else {
                    return nil
                }
                format = named
            } else {
                format = json ? .json : .token
            }
            let positionals = parsed.positionals
            // `tether token --format bazel get`: an operation where the name would be (see the full command's
            // `TokenRequest.arranged`) is for `tether-cli` to read.
            let operationWords: Set<String> = ["get", "store", "forget"]
            if format == .bazel || format == .terraform, let first = positionals.first, operationWords.contains(first) {
                return nil
            }
            return .token(
                TokenCall(
                    connection: positionals.first,
                    operation: positionals.count > 1 ? positionals[1] : nil,
                    operationHost: positionals.count > 2 ? positionals[2] : nil,
                    format: format,
                    variable: parsed.options["--variable"]?.first ?? "TETHER_TOKEN",
                    hosts: parsed.options["--host"] ?? []
                )
            )
        case "git-credential":
            guard
                let parsed = ParsedWords(
                    words.dropFirst(),
                    options: ["--connection", "--username"],
                    flags: ["--allow-login"]
                ),
                parsed.positionals == ["get"]
            else { return nil }
            return .gitCredentialGet(
                connection: parsed.options["--connection"]?.first,
                username: parsed.options["--username"]?.first
            )
        case "kube-credential":
            guard let parsed = ParsedWords(words.dropFirst(), options: ["--token"], flags: ["--allow-login"]),
                parsed.positionals.count <= 1
            else { return nil }
            let kind = parsed.options["--token"]?.first ?? "id"
            guard kind == "id" || kind == "access" else { return nil }
            return .kubeCredential(connection: parsed.positionals.first, idToken: kind == "id")
        case "docker-credential":
            let parsed = ParsedWords(words.dropFirst(), options: [], flags: ["--allow-login"])
            return parsed?.positionals == ["get"] ? .dockerCredentialGet : nil
        default:
            return nil
        }
    }

    /// The words after the executable, with the subcommand first when the executable is named as git and docker
    /// look for helpers (`git-credential-tether`, `docker-credential-tether`), as `tether-cli` reads them.
    static func commandWords(_ arguments: [String]) -> [String] {
        let rest = Array(arguments.dropFirst())
        let invokedAs = arguments.first.map { $0.split(separator: "/", omittingEmptySubsequences: true).last } ?? nil
        switch invokedAs {
        case "git-credential-tether": return ["git-credential"] + rest
        case "docker-credential-tether": return ["docker-credential"] + rest
        default: return rest
        }
    }

    /// What the full command would print for this request, when the vault holds a fresh token; otherwise what the
    /// launcher read of standard input, for `tether-cli`.
    func answer(environment: [String: String], now: Date) -> Outcome {
        switch self {
        case .token(let call):
            return call.answer(environment: environment, now: now)
        case .gitCredentialGet(let connection, let username):
            guard let vault = VaultAccess.open(environment) else { return .fallBack(nil) }
            let input = StandardInput.read(limit: Self.gitInputLimit)
            guard input.complete, let request = GitRequest(input.bytes),
                let output = Self.gitAnswer(request, connection: connection, username: username, vault: vault, now: now)
            else { return .fallBack(input) }
            return .answered(output)
        case .kubeCredential(let connection, let idToken):
            guard let apiVersion = Self.kubeAPIVersion(environment["KUBERNETES_EXEC_INFO"]),
                let fresh = FastPath.freshToken(connection: connection, environment: environment, now: now),
                let output = Self.execCredential(fresh, apiVersion: apiVersion, idToken: idToken, now: now)
            else { return .fallBack(nil) }
            return .answered(output)
        case .dockerCredentialGet:
            guard let vault = VaultAccess.open(environment) else { return .fallBack(nil) }
            let input = StandardInput.read(limit: Self.dockerInputLimit)
            guard input.complete, let output = Self.dockerAnswer(input.bytes, vault: vault, now: now) else {
                return .fallBack(input)
            }
            return .answered(output)
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
