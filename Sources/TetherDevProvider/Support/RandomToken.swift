import Foundation

/// Random values for tokens, codes and identifiers.
enum RandomToken {
    /// 32 random bytes, base64url-encoded (43 characters).
    static func make(byteCount: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64URLEncodedString()
    }

    /// A user code like `WDJB-MJHT` from an alphabet without vowels and look-alikes (RFC 8628 §6.1).
    static func userCode() -> String {
        let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<8).map { _ in alphabet.randomElement(using: &generator)! }
        return String(characters[0..<4]) + "-" + String(characters[4..<8])
    }

    /// Normalises a typed user code: upper case, without dashes and spaces.
    static func normalizedUserCode(_ code: String) -> String {
        code.uppercased().filter { $0.isLetter || $0.isNumber }
    }

    /// A random UUID string, for Microsoft trace and correlation IDs.
    static func uuid() -> String {
        UUID().uuidString.lowercased()
    }
}
