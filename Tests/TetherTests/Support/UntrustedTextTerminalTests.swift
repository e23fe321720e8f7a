import Testing

@testable import Tether

/// ``UntrustedText/forTerminal(_:)`` and ``UntrustedText/displayWidth(_:)``: what a calendar's or a provider's
/// text may look like on a terminal, and how wide it is there.
struct UntrustedTextTerminalTests {
    /// Whether `text` holds nothing a terminal acts on or that hides or reorders what is shown.
    static func isInert(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                || scalar.properties.generalCategory == .format || scalar.value == 0x2028 || scalar.value == 0x2029)
        }
    }

    @Test func escapeSequencesLoseTheirEscapeAndShowAPlaceholder() {
        let text = "\u{1B}[2J\u{1B}]0;owned\u{07}\u{1B}]8;;https://evil.example\u{1B}\\link\u{1B}]52;c;ZXZpbA==\u{07}"
        let safe = UntrustedText.forTerminal(text)
        #expect(Self.isInert(safe))
        #expect(safe == "�[2J�]0;owned��]8;;https://evil.example�\\link�]52;c;ZXZpbA==�")
    }

    @Test func c1ControlsAndDeleteShowAPlaceholder() {
        // CSI, OSC and NEL as single C1 characters, which some terminals act on as ESC [, ESC ] and a new line.
        #expect(UntrustedText.forTerminal("a\u{9B}31mb\u{9D}0;x\u{9C}c\u{7F}d\u{0}") == "a�31mb�0;x�c�d�")
        #expect(UntrustedText.forTerminal("line\u{85}next") == "line next")
    }

    @Test func lineBreaksBecomeOneSpaceEach() {
        let text = "Dentist\r\n  09:00–10:00  Fake row\nthird\rfourth\u{2028}fifth\u{2029}sixth\u{0B}\u{0C}\tend"
        #expect(
            UntrustedText.forTerminal(text) == "Dentist   09:00–10:00  Fake row third fourth fifth sixth   end"
        )
    }

    @Test(arguments: [
        "\u{061C}", "\u{200E}", "\u{200F}", "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}", "\u{2066}",
        "\u{2067}", "\u{2068}", "\u{2069}", "\u{200B}", "\u{200C}", "\u{200D}", "\u{2060}", "\u{2061}", "\u{2062}",
        "\u{2063}", "\u{2064}", "\u{FEFF}", "\u{00AD}", "\u{E0041}",
    ])
    func invisibleFormatCharactersShowAPlaceholder(character: String) {
        #expect(UntrustedText.forTerminal("a\(character)b") == "a\u{FFFD}b")
    }

    @Test func aReversedFileNameIsShownInItsOrder() {
        // "Trojan Source": U+202E would show "invoice‮fdp.exe" as "invoiceexe.pdf".
        #expect(UntrustedText.forTerminal("invoice\u{202E}fdp.exe") == "invoice\u{FFFD}fdp.exe")
    }

    @Test func ordinaryTextIsKeptAndLongTextIsNotCut() {
        let text = "Réunion — 再度サインインしてください 🙂 ❤️ 1️⃣ 🇩🇪 e\u{301}"
        #expect(UntrustedText.forTerminal(text) == text)
        let long = String(repeating: "a", count: 5000)
        #expect(UntrustedText.forTerminal(long) == long)
    }

    @Test func applyingItTwiceChangesNothingMore() {
        let text = "\u{1B}[1mbold\r\n\u{202E}x\u{200B}\u{9B}y\u{85}z"
        let once = UntrustedText.forTerminal(text)
        #expect(UntrustedText.forTerminal(once) == once)
        #expect(UntrustedText.displayWidth(once) == once.count)
    }

    @Test(arguments: [
        ("abc", 3), ("", 0), ("Réunion", 7), ("e\u{301}", 1), ("日本語", 6), ("한국어", 6), ("ＡＢ", 4), ("🙂", 2),
        ("❤️", 2), ("❤", 1), ("1️⃣", 2), ("🇩🇪", 2), ("👍🏽", 2), ("→", 1), ("\u{FFFD}", 1), ("a\u{301}\u{302}b", 2),
    ])
    func displayWidthCountsColumns(text: String, width: Int) {
        #expect(UntrustedText.displayWidth(text) == width)
    }

    @Test func sanitizedKeepsDroppingWhatItDropped() {
        // The rule for error messages and logs is unchanged: controls dropped, no placeholder.
        #expect(UntrustedText.sanitized("a\u{1B}[2Jb\u{202E}c") == "a[2Jbc")
    }
}
