import Crypto
public import Foundation

/// The secret a webhook's sender and receiver share; its `description` never shows it.
public struct WebhookSecret: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let bytes: SymmetricKey

    /// A secret from its text, such as a random string kept in the service's configuration.
    /// - Parameter text: The secret (its UTF-8 bytes are the HMAC key).
    public init(_ text: String) {
        bytes = SymmetricKey(data: Data(text.utf8))
    }

    /// A secret from raw bytes.
    /// - Parameter data: The HMAC key.
    public init(data: Data) {
        bytes = SymmetricKey(data: data)
    }

    /// `WebhookSecret(redacted)`.
    public var description: String { "WebhookSecret(redacted)" }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// A mirror without the key.
    public var customMirror: Mirror { Mirror(self, children: [:], displayStyle: .struct) }
}

/// Why a webhook's signature was refused.
public struct WebhookSignatureError: Error, Hashable, CustomStringConvertible {
    private enum Code: String {
        case malformedHeader, staleTimestamp, signatureMismatch
    }

    private let code: Code

    /// The `Tether-Signature` header is missing a part, or a part does not parse.
    public static let malformedHeader = WebhookSignatureError(code: .malformedHeader)
    /// The timestamp is further from now than the tolerance: a replay, or a clock far off.
    public static let staleTimestamp = WebhookSignatureError(code: .staleTimestamp)
    /// No `v1` signature matches the payload and the secret.
    public static let signatureMismatch = WebhookSignatureError(code: .signatureMismatch)

    /// The code, such as `signatureMismatch`.
    public var description: String { "WebhookSignatureError.\(code.rawValue)" }
}

/// The signature of a webhook's body: `Tether-Signature: t=TIMESTAMP,v1=HEX`, where `HEX` is the lowercase
/// hexadecimal HMAC-SHA256, keyed with the shared secret, of the timestamp (Unix seconds), a full stop and the body
/// exactly as sent — Stripe's scheme.
///
/// The timestamp is signed with the body, so a captured request cannot be replayed after the tolerance; a receiver
/// keeps the event identifiers (`Tether-Event-ID`) it has seen within the tolerance to refuse a replay inside it,
/// and a redelivery of the same event (at least once) then costs nothing either.
///
/// ```swift
/// try WebhookSignature.verify(payload: body, header: signature, secret: secret, now: Date())
/// ```
public enum WebhookSignature {
    /// The header's name.
    public static let headerName = "Tether-Signature"

    /// The header's value for `payload` sent at `timestamp`.
    /// - Parameters:
    ///   - payload: The body exactly as sent.
    ///   - secret: The shared secret.
    ///   - timestamp: When it is sent.
    /// - Returns: `t=TIMESTAMP,v1=HEX`.
    public static func header(payload: Data, secret: WebhookSecret, timestamp: Date) -> String {
        let seconds = Int64(timestamp.timeIntervalSince1970.rounded(.down))
        return "t=\(seconds),v1=\(hex(mac(payload, seconds: seconds, secret: secret)))"
    }

    /// Checks a `Tether-Signature` header against the body as received.
    ///
    /// The header's parts are comma-separated `key=value` pairs; unknown keys are ignored, several `v1` values
    /// are allowed (one matching is enough, so that a sender may sign with an old and a new secret while they
    /// change), and the comparison takes the same time whatever the bytes.
    /// - Parameters:
    ///   - payload: The body exactly as received, before any parsing.
    ///   - header: The `Tether-Signature` header's value.
    ///   - secret: The shared secret.
    ///   - tolerance: How far the timestamp may be from `now`, either way; 5 minutes by default.
    ///   - now: The receiver's wall time.
    /// - Throws: ``WebhookSignatureError/malformedHeader``, ``WebhookSignatureError/staleTimestamp`` or
    ///   ``WebhookSignatureError/signatureMismatch``.
    public static func verify(
        payload: Data,
        header: String,
        secret: WebhookSecret,
        tolerance: Duration = .seconds(300),
        now: Date
    ) throws {
        var timestamp: Int64?
        var signatures: [Data] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { throw WebhookSignatureError.malformedHeader }
            switch pair[0] {
            case "t":
                guard timestamp == nil, let value = Int64(pair[1]), value >= 0 else {
                    throw WebhookSignatureError.malformedHeader
                }
                timestamp = value
            case "v1":
                guard let bytes = bytes(hex: pair[1]), bytes.count == SHA256.byteCount else {
                    throw WebhookSignatureError.malformedHeader
                }
                signatures.append(bytes)
            default:
                continue
            }
        }
        guard let timestamp, !signatures.isEmpty else { throw WebhookSignatureError.malformedHeader }
        let age = abs(now.timeIntervalSince1970 - Double(timestamp))
        let limit = Double(tolerance.components.seconds) + Double(tolerance.components.attoseconds) / 1e18
        guard age <= limit else { throw WebhookSignatureError.staleTimestamp }
        let expected = mac(payload, seconds: timestamp, secret: secret)
        // Every candidate is compared in full, in constant time.
        var matched = false
        for signature in signatures where constantTimeEqual(signature, expected) { matched = true }
        guard matched else { throw WebhookSignatureError.signatureMismatch }
    }

    static func mac(_ payload: Data, seconds: Int64, secret: WebhookSecret) -> Data {
        var hmac = HMAC<SHA256>(key: secret.bytes)
        hmac.update(data: Data("\(seconds).".utf8))
        hmac.update(data: payload)
        return Data(hmac.finalize())
    }

    static func constantTimeEqual(_ lhs: Data, _ rhs: Data) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
        return difference == 0
    }

    static func hex(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(data.count * 2)
        for byte in data {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    static func bytes(hex text: String) -> Data? {
        let scalars = Array(text.utf8)
        guard scalars.count % 2 == 0 else { return nil }
        var data = Data(capacity: scalars.count / 2)
        var index = 0
        while index < scalars.count {
            guard let high = nibble(scalars[index]), let low = nibble(scalars[index + 1]) else { return nil }
            data.append(high << 4 | low)
            index += 2
        }
        return data
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
