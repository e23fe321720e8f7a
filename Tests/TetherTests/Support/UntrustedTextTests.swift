import Testing

@testable import Tether

struct UntrustedTextTests {
    /// Whether `text` holds nothing a terminal or a log reader would act on.
    static func isInert(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x061C
                || (0x200E...0x200F).contains(scalar.value) || (0x202A...0x202E).contains(scalar.value)
                || (0x2066...0x2069).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029)
        }
    }

    @Test func escapeSequencesAreDropped() {
        let text = "\u{1B}[2J\u{1B}[31mrevoked\u{1B}[0m \u{1B}]0;owned\u{07} \u{9B}31m"
        let sanitized = UntrustedText.sanitized(text)
        #expect(Self.isInert(sanitized))
        #expect(sanitized == "[2J[31mrevoked[0m ]0;owned 31m")
    }

    @Test func lineBreaksBecomeSpaces() {
        let text = "invalid_grant\nlevel=info msg=\"forged log line\"\r\n\tnext\u{2028}line"
        #expect(UntrustedText.sanitized(text) == "invalid_grant level=info msg=\"forged log line\"   next line")
    }

    @Test func bidirectionalOverridesAndDeleteAreDropped() {
        let text = "acc\u{202E}moc.elgoog\u{202C}ess\u{2066}\u{200F}\u{7F}\u{0}"
        #expect(UntrustedText.sanitized(text) == "accmoc.elgoogess")
    }

    @Test func ordinaryTextIsKept() {
        let text = "Die Anmeldung ist abgelaufen — 再度サインインしてください (AADSTS50173) 🙂"
        #expect(UntrustedText.sanitized(text) == text)
    }

    @Test func aHundredKilobytesAreCutTo200Characters() {
        let text = String(repeating: "A\u{1B}[1m\n", count: 20_000)
        let sanitized = UntrustedText.sanitized(text)
        #expect(sanitized.unicodeScalars.count == UntrustedText.maximumLength)
        #expect(sanitized.hasSuffix("…"))
        #expect(Self.isInert(sanitized))
        #expect(UntrustedText.sanitized(sanitized) == sanitized)
        // Exactly the limit is not cut.
        let fits = String(repeating: "b", count: UntrustedText.maximumLength)
        #expect(UntrustedText.sanitized(fits) == fits)
    }
}
