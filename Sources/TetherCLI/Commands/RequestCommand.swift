import ArgumentParser
import Foundation
import HTTPTypes
import Tether
import TetherCommandSupport

struct RequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Send an authorized HTTP request and print the response body.",
        discussion: """
            Adds `Authorization: Bearer …` with a token that is refreshed before it expires. When the server \
            answers 401 (error="invalid_token", Microsoft Graph's challenge without an error, GitHub's "Bad \
            credentials" without a challenge, or a claims challenge), the token is refreshed once and the request \
            sent once more — exactly as the library's AuthorizedClient does; only a challenge naming \
            invalid_request or insufficient_scope is reported at once. When the refresh is refused, the \
            connection needs sign-in and the message says why.

            A GET, HEAD, OPTIONS, PUT or DELETE answered 429 or 503 is sent again, at most twice, after the delay \
            its Retry-After asks for (1 second without one), as long as that delay is at most \
            \(RequestCommand.maximumRetryWait.components.seconds) seconds. A longer Retry-After, a 429 or 503 to \
            another method, and any other status end the command at once; after a 429 or 503 the exit status is 4 \
            and the message gives the delay the server asked for.

            The body goes to standard output as received; errors to standard error, with the exit status of \
            `tether --help` (3 when the connection needs sign-in).

            EXAMPLES
              tether request https://graph.microsoft.com/v1.0/me
              tether request calendar \\
                  https://www.googleapis.com/calendar/v3/users/me/calendarList
              tether request work https://api.example.com/items -d '{"name": "x"}'
              tether request work https://api.example.com/items -X PUT \\
                  -d @item.json -H 'Idempotency-Key: 42'
            """
    )

    @Argument(help: "The connection (optional), then the URL.")
    var arguments: [String] = []

    @Option(name: [.customShort("X"), .long], help: "The method; GET, or POST when there is a body.")
    var method: String?

    @Option(name: [.customShort("H"), .customLong("header")], help: "A header, as 'Name: value'; repeatable.")
    var headers: [String] = []

    @Option(name: [.customShort("d"), .customLong("data")], help: "The body; @FILE reads a file, @- standard input.")
    var data: String?

    @Flag(name: [.customShort("i"), .long], help: "Print the status line and headers on standard error.")
    var include = false

    @OptionGroup var global: GlobalOptions

    /// The longest `Retry-After` that `tether request` waits for before sending again (the library's default): long
    /// enough for a short throttle, short enough that a script or a person at the terminal is not held for minutes
    /// without a word. A longer wait is reported at once, with the delay, for the caller to decide.
    static let maximumRetryWait: Duration = .seconds(30)

    /// How the command retries: the library's defaults, stated so that the help cannot drift from them.
    static let retryConfiguration = AuthorizedClient.Configuration(
        backoff: Backoff(
            maximumAttempts: 3,
            initialDelay: .seconds(1),
            multiplier: 1,
            maximumDelay: maximumRetryWait,
            jitter: 0
        ),
        retriesNonIdempotentRequests: false
    )

    func validate() throws {
        guard (1...2).contains(arguments.count) else {
            throw ValidationError("Give a URL, optionally after the connection's name: tether request [CONNECTION] URL")
        }
    }

    func run() async throws {
        let workspace = try Workspace(global, createsHome: false)
        let connection = arguments.count == 2 ? arguments[0] : nil
        let urlText = arguments[arguments.count - 1]
        guard let url = URL(string: urlText), let scheme = url.scheme?.lowercased(),
            ["http", "https"].contains(scheme),
            url.host != nil
        else {
            throw CLIFailure(.usage, "'\(urlText)' is not an http or https URL")
        }
        if scheme == "http", !LoopbackHost.contains(url.host ?? "") {
            throw CLIFailure(
                .usage,
                "tether sends tokens over plain http only to this machine (127.0.0.1, localhost, ::1)",
                fix: "Use https://\(url.host ?? "")…"
            )
        }
        let name = try workspace.resolveName(connection)
        let profile = try workspace.profile(named: name)
        let session = try await workspace.session(for: profile)
        let body = try readBody()
        let methodName = (method ?? (body == nil ? "GET" : "POST")).uppercased()
        guard let method = HTTPRequest.Method(methodName) else {
            throw CLIFailure(.usage, "'\(methodName)' is not an HTTP method")
        }
        var request = HTTPRequest(method: method, url: url)
        for header in headers {
            guard let colon = header.firstIndex(of: ":"),
                let field = HTTPField.Name(String(header[..<colon]).trimmingCharacters(in: .whitespaces))
            else {
                throw CLIFailure(.usage, "The header '\(header)' is not 'Name: value'")
            }
            request.headerFields.append(
                HTTPField(
                    name: field,
                    value: String(header[header.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
                )
            )
        }
        if let body, request.headerFields[.contentType] == nil {
            let isJSON = (try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])) != nil
            request.headerFields[.contentType] = isJSON ? "application/json" : "application/x-www-form-urlencoded"
        }
        let client = AuthorizedClient(
            session: session,
            transport: workspace.transport,
            configuration: Self.retryConfiguration,
            logger: workspace.logger
        )
        do {
            let (response, responseBody) = try await client.send(request, body: body)
            workspace.statusFile.clear(name)
            if include {
                let reason = response.status.reasonPhrase.isEmpty ? "" : " \(response.status.reasonPhrase)"
                workspace.terminal.err("HTTP \(response.status.code)\(reason)")
                for field in response.headerFields { workspace.terminal.err("\(field.name): \(field.value)") }
            }
            workspace.terminal.out(responseBody)
            if workspace.terminal.stdoutIsTerminal, responseBody.last != UInt8(ascii: "\n"), !responseBody.isEmpty {
                workspace.terminal.out("")
            }
        } catch {
            let failure = Self.throttled(error) ?? CLIFailure.from(error, connection: name)
            if failure.status == .needsSignIn || failure.status == .unavailable {
                workspace.statusFile.record(failure.message, for: name)
            }
            throw failure
        }
    }

    /// A 429 or 503 that was not (or no longer) retried, with the delay the server asked for; `nil` for any other
    /// error.
    static func throttled(_ error: any Error) -> CLIFailure? {
        guard let error = error as? AuthorizedClientError, error == .server, let retryAfter = error.retryAfter,
            case .throttled = FailureClassifier.classify(statusCode: error.httpStatus ?? 0)
        else { return nil }
        let base = CLIFailure.from(error)
        let seconds = retryAfter.components.seconds + (retryAfter.components.attoseconds > 0 ? 1 : 0)
        let wait = seconds == 1 ? "1 second" : "\(seconds) seconds"
        let note =
            retryAfter > maximumRetryWait
            ? "; it asked to be called again in \(wait), longer than the "
                + "\(maximumRetryWait.components.seconds) seconds tether request waits"
            : "; it asked to be called again in \(wait)"
        return CLIFailure(base.status, base.message + note, fix: "Try again in \(wait)")
    }

    func readBody() throws -> Data? {
        guard let data else { return nil }
        guard data.hasPrefix("@") else { return Data(data.utf8) }
        let path = String(data.dropFirst())
        if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIFailure(.usage, "Could not read the body from \(path): \(error.localizedDescription)")
        }
    }
}
