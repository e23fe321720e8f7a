#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// Base64url without padding (RFC 4648 §5, as RFC 7515 §2 and RFC 7636 §3 use it): JWT parts, PKCE challenges,
/// random `state` values and vault file names.
package enum Base64URLCoding {
    /// Decodes base64url text; `nil` for characters outside the alphabet (`+`, `/` included), padding, or an
    /// impossible length.
    /// - Parameter text: The encoded bytes.
    /// - Returns: The decoded bytes, or `nil`.
    package static func decode(_ text: some Collection<UInt8>) -> Data? {
        guard text.count % 4 != 1 else { return nil }
        var base64 = [UInt8]()
        base64.reserveCapacity(text.count + 3)
        for byte in text {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                base64.append(byte)
            case UInt8(ascii: "-"): base64.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): base64.append(UInt8(ascii: "/"))
            default: return nil
            }
        }
        while base64.count % 4 != 0 { base64.append(UInt8(ascii: "=")) }
        return Data(base64Encoded: Data(base64))
    }

    /// Encodes bytes as base64url without padding.
    /// - Parameter data: The bytes.
    /// - Returns: The encoded text.
    package static func encode(_ data: some DataProtocol) -> String {
        let base64 = Data(data).base64EncodedData()
        var encoded = [UInt8]()
        encoded.reserveCapacity(base64.count)
        for byte in base64 {
            switch byte {
            case UInt8(ascii: "+"): encoded.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): encoded.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: encoded.append(byte)
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    /// Decodes base64url text; `nil` for characters outside the alphabet, padding, or an impossible length.
    /// - Parameter text: The encoded bytes.
    /// - Returns: The decoded bytes, or `nil`.
    package static func decode(_ text: some StringProtocol) -> Data? {
        decode(Array(text.utf8))
    }
}
