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

    // MARK: - Terminal

    /// What stands in, on a terminal, for a character that must not reach it: visible, so that the reader sees that
    /// something was there.
    package static let placeholder: Unicode.Scalar = "\u{FFFD}"

    /// `text` as a terminal may show it: one line with nothing in it that the terminal would act on or that would
    /// hide or reorder what the reader sees. Every cell and message the CLI shows from outside passes through it.
    ///
    /// - Line breaks (`\n`, `\r`, `\r\n` as one, vertical tab, form feed, NEL U+0085, U+2028, U+2029) and tabs
    ///   become spaces, so that no text starts a line of its own (a fake table row).
    /// - Other controls (C0 with ESC, DEL, C1 with CSI U+009B and OSC U+009D) and the invisible format characters
    ///   (Unicode general category Cf: the bidirectional controls U+061C, U+200E, U+200F, U+202A–U+202E,
    ///   U+2066–U+2069, the zero-width U+200B–U+200D, U+2060–U+2064, U+FEFF, soft hyphen, tags, …) become
    ///   ``placeholder``.
    ///
    /// Nothing is cut: the caller bounds the width. Applying it twice changes nothing more. Not for `--json`,
    /// whose encoder escapes exactly.
    /// - Parameter text: The text as received.
    /// - Returns: The text, safe to write to a terminal; measure it with ``displayWidth(_:)``.
    package static func forTerminal(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var afterCarriageReturn = false
        for scalar in text.unicodeScalars {
            defer { afterCarriageReturn = scalar.value == 0x0D }
            switch scalar.value {
            case 0x0A where afterCarriageReturn:
                continue
            case 0x09...0x0D, 0x85, 0x2028, 0x2029:
                result.append(" ")
            case 0x00...0x1F, 0x7F...0x9F:
                result.append(placeholder)
            case _ where scalar.properties.generalCategory == .format:
                result.append(placeholder)
            default:
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// The columns `text` takes on a terminal: 2 for wide characters (CJK, fullwidth forms, emoji shown as emoji),
    /// 0 for a lone combining mark or format character, 1 for the rest.
    ///
    /// Measure text after ``forTerminal(_:)``: a control character has no width here, whatever it would do.
    /// - Parameter text: The text to measure.
    /// - Returns: Its width in columns.
    package static func displayWidth(_ text: String) -> Int {
        text.reduce(0) { $0 + displayWidth(of: $1) }
    }

    private static func displayWidth(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        let zeroWidth: Set<Unicode.GeneralCategory> = [.nonspacingMark, .enclosingMark, .format, .control]
        if scalars.allSatisfy({ zeroWidth.contains($0.properties.generalCategory) }) { return 0 }
        if first.properties.isEmojiPresentation { return 2 }
        // An emoji with text presentation by default, asked for as emoji (U+FE0F): ❤️, ☀️.
        if first.properties.isEmoji, scalars.contains("\u{FE0F}") { return 2 }
        return isWide(first.value) ? 2 : 1
    }

    /// East Asian Wide and Fullwidth (Unicode Standard Annex #11) outside the emoji, which
    /// `isEmojiPresentation` covers.
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
            0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1AFF0...0x1B2FF,
            0x1F200...0x1F2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            true
        default:
            false
        }
    }
}
