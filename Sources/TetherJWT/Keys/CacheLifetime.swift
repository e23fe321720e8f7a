import Foundation
package import HTTPTypes

/// How long a response may be reused, from its `Cache-Control` and `Age` fields (RFC 9111 §5.2.2, §5.1).
package enum CacheLifetime {
    /// The longest time keys are kept: 24 hours, whatever `max-age` says, so that an issuer's key rotation (or
    /// revocation of a leaked key) reaches the verifier within a day, and no duration computed from it overflows.
    package static let maximum: Duration = .seconds(86_400)

    /// The freshness lifetime a response grants.
    /// - Parameter fields: The response's header fields.
    /// - Returns: `max-age` minus `Age`, at most ``maximum``; zero for `no-store` or `no-cache`; `nil` when there is
    ///   no `max-age`.
    package static func of(_ fields: HTTPFields) -> Duration? {
        let directives = fields[values: .cacheControl]
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        var maxAge: Int?
        for directive in directives {
            if directive == "no-store" || directive == "no-cache" { return .zero }
            if directive.hasPrefix("max-age=") {
                let value = directive.dropFirst("max-age=".count).trimmingCharacters(
                    in: CharacterSet(charactersIn: "\"")
                )
                // Delta-seconds too large for Int are still a (huge) lifetime (RFC 9111 §1.2.2).
                guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
                else { continue }
                maxAge = Int(value) ?? Int.max
            }
        }
        guard let maxAge else { return nil }
        let age = fields[.age].flatMap { Int($0) }.map { max($0, 0) } ?? 0
        return min(.seconds(max(maxAge - age, 0)), maximum)
    }
}
