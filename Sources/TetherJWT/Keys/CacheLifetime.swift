import Foundation
package import HTTPTypes

/// How long a response may be reused, from its `Cache-Control` and `Age` fields (RFC 9111 §5.2.2, §5.1).
package enum CacheLifetime {
    /// The freshness lifetime a response grants.
    /// - Parameter fields: The response's header fields.
    /// - Returns: `max-age` minus `Age`; zero for `no-store` or `no-cache`; `nil` when there is no `max-age`.
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
                guard let seconds = Int(value), seconds >= 0 else { continue }
                maxAge = seconds
            }
        }
        guard let maxAge else { return nil }
        let age = fields[.age].flatMap { Int($0) }.map { max($0, 0) } ?? 0
        return .seconds(max(maxAge - age, 0))
    }
}
