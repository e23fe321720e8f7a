import Foundation

/// `application/x-www-form-urlencoded` (the WHATWG rules RFC 6749 Appendix B points to).
enum FormEncoding {
    /// Characters left as they are; everything else is percent-encoded (space too, as `%20`).
    private static let unreserved = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._*"
    )

    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    static func body(_ fields: [(String, String)]) -> Data {
        Data(fields.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&").utf8)
    }
}

extension FormEncoding {
    /// Decodes an `application/x-www-form-urlencoded` body: `+` is a space, `%XX` a byte; a name given twice keeps
    /// its first value (RFC 6749 §3.1 forbids repeating a parameter). `nil` for a body that is not UTF-8.
    static func decode(_ data: Data) -> [String: String]? {
        guard let text = String(data: data, encoding: .utf8) else { return nil }
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func unescaped(_ part: Substring) -> String? {
                String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
            guard let name = unescaped(parts[0]), !name.isEmpty else { continue }
            let value = parts.count > 1 ? unescaped(parts[1]) ?? "" : ""
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }
}
