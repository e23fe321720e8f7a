import Foundation

/// `application/x-www-form-urlencoded` fields (also used for query strings).
struct FormData: Sendable {
    private(set) var fields: [(name: String, value: String)]

    init(_ encoded: String?) {
        guard let encoded, !encoded.isEmpty else {
            self.fields = []
            return
        }
        self.fields = encoded.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = parts.first.map({ Self.decode($0) }), !name.isEmpty else {
                return nil
            }
            return (name, parts.count > 1 ? Self.decode(parts[1]) : "")
        }
    }

    /// The first value of a field; empty values count as absent (RFC 6749 §3.1).
    subscript(name: String) -> String? {
        guard let value = self.fields.first(where: { $0.name == name })?.value, !value.isEmpty else {
            return nil
        }
        return value
    }

    /// Whether a field occurs more than once (RFC 6749 §3.1: parameters must not be repeated).
    func isRepeated(_ name: String) -> Bool {
        self.fields.filter { $0.name == name }.count > 1
    }

    private static func decode(_ part: Substring) -> String {
        let spaced = part.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    )

    /// Percent-encodes a value for a query string (everything but RFC 3986 unreserved characters).
    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? value
    }

    /// Appends query parameters to a URI, keeping any query it already has.
    static func append(_ parameters: [(String, String?)], to uri: String) -> String {
        let query = parameters.compactMap { name, value in value.map { "\(name)=\(Self.encode($0))" } }
            .joined(separator: "&")
        guard !query.isEmpty else {
            return uri
        }
        return uri + (uri.contains("?") ? "&" : "?") + query
    }
}
