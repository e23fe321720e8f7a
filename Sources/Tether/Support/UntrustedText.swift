/// Text that came from outside — a provider's answer, a callback's query, a token's header — made safe to put
/// into an error message, a log line or a terminal.
///
/// A provider (or anyone on the path to it) chooses this text, so shown as it is it could move the cursor,
/// recolour or clear the terminal (ESC sequences), forge extra log lines (newlines), reorder what the reader sees
/// (Unicode bidirectional overrides, the "Trojan Source" trick of CVE-2021-42574) or fill the screen.
package enum UntrustedText {
    /// The longest result, in Unicode scalars, the ellipsis included.
    package static let maximumLength = 200

    /// `text` without control characters and bounded in length.
    ///
    /// - Line breaks and tabs (`\n`, `\r`, `\t`, U+2028, U+2029) become spaces.
    /// - Other C0 controls (U+0000–U+001F, ESC included), DEL (U+007F), C1 controls (U+0080–U+009F) and the
    ///   bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) are dropped.
    /// - What is longer than `maximumLength` scalars is cut and ends with "…".
    ///
    /// Applying it twice changes nothing more.
    /// - Parameters:
    ///   - text: The text as received.
    ///   - maximumLength: The longest result in Unicode scalars; at least 1.
    /// - Returns: The text, safe to show.
    package static func sanitized(_ text: String, maximumLength: Int = maximumLength) -> String {
        let limit = max(1, maximumLength)
        var result = String.UnicodeScalarView()
        var count = 0
        for scalar in text.unicodeScalars {
            let kept: Unicode.Scalar
            switch scalar.value {
            case 0x09, 0x0A, 0x0D, 0x2028, 0x2029: kept = " "
            case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: continue
            default: kept = scalar
            }
            if count == limit {
                // One scalar too many: the last kept one makes room for the ellipsis.
                result.removeLast()
                result.append("…")
                return String(result)
            }
            result.append(kept)
            count += 1
        }
        return String(result)
    }

    /// `text` sanitized, or `nil`.
    /// - Parameter text: The text as received, if any.
    /// - Returns: ``sanitized(_:maximumLength:)`` of it.
    package static func sanitized(_ text: String?) -> String? {
        text.map { sanitized($0) }
    }
}
