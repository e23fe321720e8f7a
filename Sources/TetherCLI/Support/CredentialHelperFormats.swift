import ArgumentParser
import Foundation
import Tether
import TetherCommandSupport

/// How `tether token` prints the token (`--format`).
enum TokenFormat: String, Sendable, CaseIterable, ExpressibleByArgument {
    /// The token alone.
    case token
    /// `{name, accessToken, tokenType, expiresAt}`.
    case json
    /// `Authorization: Bearer TOKEN`, for `curl -H @-`.
    case header
    /// `export NAME='TOKEN'`, for `eval`.
    case env
    /// A Bazel credential helper's answer: `{"headers":{"Authorization":["Bearer TOKEN"]},"expires":…}`.
    case bazel
    /// A Terraform credentials helper's answer: `{"token":"TOKEN"}`.
    case terraform

    init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

/// What a `tether token` run is asked for, once the tool's operation (`get`, `store`, `forget`) is read.
enum TokenRequest: Sendable, Equatable {
    /// Print the token, for a request to `host` (`nil`: no particular host).
    case token(host: String?)
    /// Print this answer and no token (`{}` for a host the token must not go to), or nothing when empty.
    case answer(String)

    /// The operations each helper format is asked.
    static func operations(of format: TokenFormat) -> Set<String> {
        switch format {
        case .bazel: ["get"]
        case .terraform: ["get", "store", "forget"]
        default: []
        }
    }

    /// The connection, operation and host of `tether token [NAME] [OPERATION [HOST]]`: a tool that runs the helper
    /// without a connection name (the only connection, or `TETHER_CONNECTION`) puts its operation first, as in
    /// `tether token --format bazel get`. A first word that is one of the format's operations, not followed by
    /// another, is the operation; a connection named like an operation is named before it (`tether token get get`).
    static func arranged(
        _ words: (connection: String?, operation: String?, host: String?),
        format: TokenFormat
    ) -> (connection: String?, operation: String?, host: String?) {
        let operations = operations(of: format)
        guard let first = words.connection, operations.contains(first), words.host == nil,
            words.operation.map({ !operations.contains($0) }) ?? true
        else { return words }
        return (nil, first, words.operation)
    }

    /// Reads the operation of a Bazel or Terraform helper call; standard input only for the operations that
    /// have one.
    static func read(
        format: TokenFormat,
        operation: String?,
        host: String?,
        hosts: [String],
        standardInput: () throws -> Data = { try HelperInput.read(limit: 64 * 1024) }
    ) throws -> TokenRequest {
        let allowed = try hosts.map { try CredentialHelperSetting.normalizedHost($0, option: "--host") }
        guard let operation else {
            if host != nil { throw CLIFailure(.usage, "A host is only taken after `get`") }
            return .token(host: nil)
        }
        switch (format, operation) {
        case (.bazel, "get"):
            // {"uri": "https://…"} (Bazel's credential helper protocol).
            let object = try? JSONSerialization.jsonObject(with: try standardInput()) as? [String: Any]
            guard let uri = object?["uri"] as? String, let requested = CredentialHelperSetting.host(of: uri) else {
                throw CLIFailure(.usage, "Bazel's request on standard input has no usable \"uri\"")
            }
            if !allowed.isEmpty, !allowed.contains(requested) { return .answer("{}") }
            return .token(host: requested)
        case (.terraform, "get"):
            guard let host, let requested = CredentialHelperSetting.host(of: host) else {
                throw CLIFailure(.usage, "Terraform's `get` needs the host", fix: "Run it as `… get HOST`")
            }
            // Terraform asks its one helper for every host it talks to: only the hosts named get the token.
            return allowed.contains(requested) ? .token(host: requested) : .answer("{}")
        case (.terraform, "store"):
            _ = try standardInput()
            return .answer("")
        case (.terraform, "forget"):
            return .answer("")
        default:
            throw CLIFailure(
                .usage,
                "--format \(format.rawValue) does not take the operation '\(operation.prefix(40))'",
                fix: "Bazel asks `get`; Terraform asks `get HOST`, `store HOST` and `forget HOST`"
            )
        }
    }
}

/// A token as `tether token` prints it in each ``TokenFormat``.
struct TokenOutput: Sendable {
    let name: String
    let token: AccessToken
    let tokenType: String?
    let expiresAt: Date?

    func render(_ format: TokenFormat, variable: String) throws -> String {
        let value = token.revealedValue
        switch format {
        case .token:
            return value
        case .json:
            let object: [String: String?] = [
                "name": name,
                "accessToken": value,
                "tokenType": tokenType ?? "Bearer",
                "expiresAt": Format.iso8601(expiresAt),
            ]
            return try Self.json(object, pretty: true)
        case .header:
            return "Authorization: Bearer \(value)"
        case .env:
            return "export \(try Self.validatedVariable(variable))=\(Self.shellQuoted(value))"
        case .bazel:
            struct Answer: Encodable {
                let headers: [String: [String]]
                let expires: String?
            }
            return try Self.json(
                Answer(headers: ["Authorization": ["Bearer \(value)"]], expires: expiresAt.map(HelperTime.rfc3339))
            )
        case .terraform:
            return try Self.json(["token": value])
        }
    }

    private static func json(_ value: some Encodable, pretty: Bool = false) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// A shell variable name: a letter or `_`, then letters, digits or `_`.
    static func validatedVariable(_ name: String) throws -> String {
        let first = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
        let rest = first.union("0123456789")
        guard let head = name.first, first.contains(head), name.allSatisfy({ rest.contains($0) }), name.count <= 128
        else {
            throw CLIFailure(.usage, "--variable '\(name.prefix(40))' is not a shell variable name")
        }
        return name
    }

    /// `'…'` with each `'` written as `'\''`: the shell reads it back as the exact text.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
