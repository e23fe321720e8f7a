import TetherVaultCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The answers of `tether token --format …` and of the credential helpers (`git-credential get`, `kube-credential`,
// `docker-credential get`) from a fresh token, each written byte for byte as the full command writes it
// (TokenCommand.swift, CredentialHelperFormats.swift, GitCredentialCommand.swift, KubeCredentialCommand.swift,
// DockerCredentialCommand.swift); `LauncherTests` compare the two. Whatever the full command would do otherwise —
// refresh, report, refuse — is `nil` here.

extension FastCommand.TokenCall {
    /// `tether token` in any format; Bazel's `get` reads its request from standard input.
    func answer(environment: [String: String], now: Date) -> FastCommand.Outcome {
        if format == .env, !Self.isShellVariable(variable) { return .fallBack(nil) }
        var allowed: [String] = []
        for host in hosts {
            guard let normalized = HostName.of(host) else { return .fallBack(nil) }
            allowed.append(normalized)
        }
        switch (format, operation) {
        case (_, nil):
            guard operationHost == nil else { return .fallBack(nil) }
        case (.terraform, "get"?):
            // Terraform asks its one helper for every host it talks to: only the hosts named get the token.
            guard let operationHost, let requested = HostName.of(operationHost) else { return .fallBack(nil) }
            if !allowed.contains(requested) { return .answered("{}\n") }
        case (.terraform, "forget"?):
            return .answered("")
        case (.bazel, "get"?):
            guard let vault = VaultAccess.open(environment) else { return .fallBack(nil) }
            let read = StandardInput.read(limit: FastCommand.tokenInputLimit)
            guard read.complete,
                let object = try? JSONDecoder().decode([String: JSONValue].self, from: Data(read.bytes)),
                case .string(let uri)? = object["uri"], let requested = HostName.of(uri)
            else { return .fallBack(read) }
            if !allowed.isEmpty, !allowed.contains(requested) { return .answered("{}\n") }
            return answer(vault: vault, environment: environment, now: now).map { .answered($0) } ?? .fallBack(read)
        default:
            return .fallBack(nil)
        }
        guard let vault = VaultAccess.open(environment),
            let output = answer(vault: vault, environment: environment, now: now)
        else { return .fallBack(nil) }
        return .answered(output)
    }

    private func answer(vault: VaultAccess, environment: [String: String], now: Date) -> String? {
        guard let name = FastPath.resolveName(connection, environment: environment, profiles: vault.profiles),
            let fresh = FastPath.freshToken(named: name, in: vault, now: now)
        else { return nil }
        let value = fresh.accessToken
        switch format {
        case .token:
            return value + "\n"
        case .json:
            return FastCommand.tokenJSON(fresh)
        case .header:
            return "Authorization: Bearer \(value)\n"
        case .env:
            return "export \(variable)='" + value.replacing("'", with: "'\\''") + "'\n"
        case .bazel:
            struct Answer: Encodable {
                let headers: [String: [String]]
                let expires: String?
            }
            var expires: String?
            if let date = fresh.expiresAt {
                guard let text = FastCommand.internetDateTime(date) else { return nil }
                expires = text
            }
            return Self.json(Answer(headers: ["Authorization": ["Bearer \(value)"]], expires: expires))
        case .terraform:
            return Self.json(["token": value])
        }
    }

    /// As `TokenOutput` encodes the helpers' answers: sorted keys, slashes escaped.
    private static func json(_ value: some Encodable) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(value) else { return nil }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// A shell variable name, as `TokenOutput.validatedVariable` accepts it.
    static func isShellVariable(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        func isFirst(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || byte == UInt8(ascii: "_")
        }
        guard let head = bytes.first, isFirst(head), bytes.count <= 128 else { return false }
        return bytes.allSatisfy { isFirst($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}

extension FastCommand {
    /// `git credential get`'s answer for a fresh token of the connection named, or of the one saved for the host.
    static func gitAnswer(
        _ request: GitRequest,
        connection: String?,
        username: String?,
        vault: VaultAccess,
        now: Date
    ) -> String? {
        let name: String?
        if let connection {
            name = FastPath.resolveName(connection, environment: [:], profiles: vault.profiles)
        } else {
            name = request.values["host"].flatMap(HostName.of).flatMap {
                vault.profiles.connection(serving: $0, kind: \.gitHosts)
            }
        }
        guard let name, request.allowsToken,
            FastPath.hasNoEntry(name, in: vault.home + "/rejected-tokens.json"),
            let fresh = FastPath.freshToken(named: name, in: vault, now: now),
            !fresh.accessToken.contains(where: { $0 == "\n" || $0 == "\0" })
        else { return nil }
        var lines: [String]
        if (request.lists["capability"] ?? []).contains("authtype") {
            lines = ["capability[]=authtype", "authtype=Bearer", "credential=\(fresh.accessToken)", "ephemeral=true"]
        } else {
            let given = request.values["username"].flatMap { $0.isEmpty ? nil : $0 }
            let user = username ?? given ?? vault.profiles.helperSettings[name]?.gitUsername ?? "oauth2"
            lines = ["username=\(user)", "password=\(fresh.accessToken)"]
        }
        if let expiresAt = fresh.expiresAt {
            lines.append("password_expiry_utc=\(Int64(expiresAt.timeIntervalSince1970.rounded(.down)))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `docker-credential get`'s answer for the registry on standard input, from a fresh token of the connection
    /// saved for it.
    static func dockerAnswer(_ input: [UInt8], vault: VaultAccess, now: Date) -> String? {
        // ASCII only: other text is trimmed and compared by `tether-cli`'s Unicode rules.
        guard input.allSatisfy({ $0 < 0x80 }) else { return nil }
        let isSpace: (UInt8) -> Bool = { (9...13).contains($0) || $0 == 32 }
        guard let first = input.firstIndex(where: { !isSpace($0) }), let last = input.lastIndex(where: { !isSpace($0) })
        else { return nil }
        let serverURL = String(decoding: input[first...last], as: UTF8.self)
        guard let host = HostName.of(serverURL),
            let name = vault.profiles.connection(serving: host, kind: \.dockerRegistries),
            let fresh = FastPath.freshToken(named: name, in: vault, now: now)
        else { return nil }
        let answer = [
            "ServerURL": serverURL,
            "Username": vault.profiles.helperSettings[name]?.dockerUsername ?? "oauth2accesstoken",
            "Secret": fresh.accessToken,
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(answer) else { return nil }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// The `apiVersion` kubectl asks for in `KUBERNETES_EXEC_INFO` (v1 when it gives none); `nil` for anything
    /// `tether-cli` would refuse or read otherwise.
    static func kubeAPIVersion(_ execInfo: String?) -> String? {
        let supported = ["client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"]
        guard let execInfo, !execInfo.isEmpty else { return supported[0] }
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: Data(execInfo.utf8)) else {
            return nil
        }
        switch object["apiVersion"] {
        case nil: return supported[0]
        case .string(let version)?: return supported.contains(version) ? version : nil
        case _?: return nil
        }
    }

    /// The ExecCredential kubectl reads, when the token it carries stays valid beyond the full command's leeway.
    static func execCredential(_ fresh: FreshToken, apiVersion: String, idToken: Bool, now: Date) -> String? {
        struct ExecCredential: Encodable {
            let apiVersion: String
            var kind = "ExecCredential"
            let status: [String: String]
        }
        let value: String
        let expiresAt: Date?
        if idToken {
            guard let token = fresh.idToken, let expiry = Self.idTokenExpiry(token),
                expiry.expiresAt.timeIntervalSince(now) >= expiry.leeway + FastPath.safetyMargin
            else { return nil }
            value = token
            expiresAt = expiry.expiresAt
        } else {
            value = fresh.accessToken
            expiresAt = fresh.expiresAt
        }
        var status = ["token": value]
        if let expiresAt {
            guard let text = internetDateTime(expiresAt) else { return nil }
            status["expirationTimestamp"] = text
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(ExecCredential(apiVersion: apiVersion, status: status)) else {
            return nil
        }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// An ID token's `exp`, and the leeway within which `tether kube-credential` renews it: a minute, or a quarter
    /// of its lifetime (`exp` − `iat`) when that is shorter.
    static func idTokenExpiry(_ token: String) -> (expiresAt: Date, leeway: Double)? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URLCoding.decode(parts[1]),
            let claims = try? JSONDecoder().decode([String: JSONValue].self, from: payload),
            let exp = number(claims["exp"])
        else { return nil }
        var lifetime = Double.infinity
        if let issued = claims["iat"] {
            guard let iat = number(issued) else { return nil }
            lifetime = exp - iat
        }
        return (Date(timeIntervalSince1970: exp), min(60, max(0, lifetime) / 4))
    }

    private static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .integer(let number)?: Double(number)
        case .number(let number)?: number
        default: nil
        }
    }
}

/// What git writes to a credential helper, read as `GitCredentialInput.parse` reads it (git-credential(1)):
/// `key=value` lines to a blank line or the end; a key ending in `[]` collects values, an empty one clears them.
/// `nil` for any input the full command refuses.
struct GitRequest {
    var values: [String: String] = [:]
    var lists: [String: [String]] = [:]

    init?(_ data: [UInt8]) {
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            guard line.count <= 65_535 else { return nil }
            var bytes = line
            if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
            if bytes.isEmpty { break }
            // A byte-order mark is left to `tether-cli`'s decoder.
            guard !bytes.contains(0), !bytes.starts(with: [0xEF, 0xBB, 0xBF]),
                let text = String(validating: bytes, as: UTF8.self),
                let equals = text.firstIndex(of: "="), equals != text.startIndex
            else { return nil }
            let key = String(text[..<equals])
            let value = String(text[text.index(after: equals)...])
            if key.hasSuffix("[]") {
                let name = String(key.dropLast(2))
                if value.isEmpty { lists[name] = [] } else { lists[name, default: []].append(value) }
            } else {
                values[key] = value
            }
        }
    }

    /// Whether a token may go to this URL: https, or plain http to the loopback interface.
    var allowsToken: Bool {
        switch values["protocol"] {
        case nil: return true
        case let scheme?:
            guard scheme.utf8.allSatisfy({ $0 < 0x80 }) else { return false }
            switch scheme.lowercased() {
            case "https": return true
            case "http":
                guard let host = values["host"].flatMap(HostName.of) else { return false }
                let name =
                    host.hasPrefix("[")
                    ? String(host.dropFirst().prefix { $0 != "]" }) : String(host.prefix { $0 != ":" })
                return ["127.0.0.1", "localhost", "::1"].contains(name)
            default: return false
            }
        }
    }
}

/// A host as the helpers compare it (`CredentialHelperSetting.host(of:)`): the `host[:port]` of a URL or bare host,
/// lowercased, without a scheme, path, user or trailing dot. ASCII only: `nil` for other text, which `tether-cli`
/// judges by its Unicode rules.
enum HostName {
    static func of(_ text: String) -> String? {
        var bytes = Array(text.utf8)[...]
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        while let first = bytes.first, first == 32 || first == 9 { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == 32 || last == 9 { bytes = bytes.dropLast() }
        let separator = Array("://".utf8)
        if let start = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) {
            bytes = bytes[(start + separator.count)...]
        }
        if let end = bytes.firstIndex(where: {
            $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
        }) {
            bytes = bytes[..<end]
        }
        if let at = bytes.lastIndex(of: UInt8(ascii: "@")) { bytes = bytes[(at + 1)...] }
        var host = String(decoding: bytes, as: UTF8.self).lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.-:[]_".utf8)
        guard !host.isEmpty, host.utf8.count <= 260, host.utf8.allSatisfy({ allowed.contains($0) }),
            !host.hasPrefix("-"), !host.hasPrefix(":")
        else { return nil }
        return host
    }
}

/// The words after a command, read as the argument parser reads them for the options the launcher takes: each
/// option followed by its value as the next word, flags alone, the rest positional. `nil` for anything else: an
/// unknown or repeated option, `--option=value`, a value or positional that starts with `-`, `--`, `help`.
struct ParsedWords {
    var positionals: [String] = []
    var options: [String: [String]] = [:]
    var flags: Set<String> = []

    init?(
        _ words: ArraySlice<String>,
        options known: Set<String>,
        repeatable: Set<String> = [],
        flags knownFlags: Set<String> = []
    ) {
        var rest = words[...]
        while let word = rest.popFirst() {
            if knownFlags.contains(word) {
                guard flags.insert(word).inserted else { return nil }
            } else if known.contains(word) {
                guard let value = rest.popFirst(), !value.hasPrefix("-"),
                    repeatable.contains(word) || options[word] == nil
                else { return nil }
                options[word, default: []].append(value)
            } else if word.hasPrefix("-") || word == "help" || word.isEmpty {
                return nil
            } else {
                positionals.append(word)
            }
        }
    }
}
