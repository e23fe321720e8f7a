import Foundation
import Tether

/// The no-echo rule every target checks: a secret planted in the input never reaches an error's `description` or
/// `message` (the library's rule: tokens, codes and secrets never reach an error message).
enum SecretCheck {
    /// The marker planted as the secret values of the seeds (`code`, `access_token`, `refresh_token`, `id_token`,
    /// the vault's tokens, the client secret, calendar event text). It is no real secret.
    static let marker = "fuzzSECRETm4rker"

    /// Traps when a text derived from `error` contains the marker.
    static func check(_ error: any Error, target: String) {
        var texts = [String(describing: error)]
        if let error = error as? any TetherError { texts.append(error.message) }
        check(texts, target: target, what: "an error")
    }

    /// Traps when one of `texts` contains the marker.
    static func check(_ texts: [String], target: String, what: String) {
        for text in texts where text.contains(marker) {
            fatalError("\(target): \(what) echoes the input's secret: \(text)")
        }
    }

    /// Whether the marker occurs in a JSON document outside the string values of `secretKeys`: in keys or in other
    /// values (which the library may quote, sanitized, as provider text). Only when it does not is the no-echo rule
    /// checked; otherwise the input itself put the marker in a quotable place. The document is read with
    /// `JSONDecoder`, as the library reads it (it accepts what `JSONSerialization` refuses, such as raw control
    /// characters in strings); a body that is not JSON at all is never quoted, so the rule holds for it.
    static func markerOutsideSecrets(ofJSON data: Data, secretKeys: Set<String>) -> Bool {
        guard data.range(of: Data(marker.utf8)) != nil else { return false }
        guard let value = try? JSONDecoder().decode(AnyJSON.self, from: data) else { return false }
        return value.containsMarker(outside: secretKeys)
    }
}

/// Any JSON value, for ``SecretCheck/markerOutsideSecrets(ofJSON:secretKeys:)``.
private enum AnyJSON: Decodable {
    case text(String)
    case array([AnyJSON])
    case object([String: AnyJSON])
    case other

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self = .text(text)
        } else if let array = try? container.decode([AnyJSON].self) {
            self = .array(array)
        } else if let object = try? container.decode([String: AnyJSON].self) {
            self = .object(object)
        } else {
            self = .other
        }
    }

    func containsMarker(outside secretKeys: Set<String>) -> Bool {
        switch self {
        case .text(let text): text.contains(SecretCheck.marker)
        case .array(let array): array.contains { $0.containsMarker(outside: secretKeys) }
        case .object(let object):
            object.contains { key, value in
                key.contains(SecretCheck.marker)
                    || (!secretKeys.contains(key) && value.containsMarker(outside: secretKeys))
            }
        case .other: false
        }
    }
}
