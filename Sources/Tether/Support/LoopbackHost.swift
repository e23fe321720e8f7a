import Foundation

/// Which hosts plain HTTP may reach: those on this machine.
package enum LoopbackHost {
    /// Whether `host` is a loopback address (127.0.0.0/8, `::1`) or `localhost` (RFC 8252 §7.3, RFC 6761 §6.3).
    /// - Parameter host: A URL's host, IPv6 addresses with or without brackets.
    /// - Returns: Whether plain HTTP to it stays on this machine.
    package static func contains(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.first == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Whether an HTTP authority (`host`, `host:port`, `[::1]:port`) names a loopback host.
    /// - Parameter authority: The authority of a request, without user information.
    /// - Returns: Whether plain HTTP to it stays on this machine.
    package static func contains(authority: String) -> Bool {
        guard !authority.contains("@"), let host = URLComponents(string: "http://\(authority)")?.host else {
            return false
        }
        return contains(host)
    }
}
