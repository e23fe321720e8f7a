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

    /// Whether the marker occurs in a JSON document outside the string values of `secretKeys`: in keys, in other
    /// values (which the library may quote, sanitized, as provider text) or in text that is not JSON at all. Only
    /// when it does not is the no-echo rule checked; otherwise the input itself put the marker in a quotable place.
    static func markerOutsideSecrets(ofJSON data: Data, secretKeys: Set<String>) -> Bool {
        guard data.range(of: Data(marker.utf8)) != nil else { return false }
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return false
        }
        return containsMarker(object, secretKeys: secretKeys)
    }

    private static func containsMarker(_ value: Any, secretKeys: Set<String>) -> Bool {
        switch value {
        case let text as String:
            return text.contains(marker)
        case let array as [Any]:
            return array.contains { containsMarker($0, secretKeys: secretKeys) }
        case let object as [String: Any]:
            return object.contains { key, value in
                key.contains(marker) || (!secretKeys.contains(key) && containsMarker(value, secretKeys: secretKeys))
            }
        default:
            return false
        }
    }
}
