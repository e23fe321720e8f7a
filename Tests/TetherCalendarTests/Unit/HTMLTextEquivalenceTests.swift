import Testing

@testable import TetherCalendar

/// The conversion as it was before it read tags in place, kept to check that the faster one says the same.
private enum ReferenceHTMLText {
    static func looksLikeHTML(_ text: String) -> Bool {
        var previousWasOpen = false
        for scalar in text.unicodeScalars {
            if previousWasOpen, scalar.properties.isAlphabetic || scalar == "/" || scalar == "!" { return true }
            previousWasOpen = scalar == "<"
        }
        return text.contains("&") && text.contains(";") && plainText(text) != text
    }

    /// Elements whose start and end separate lines.
    static let blockElements: Set<String> = [
        "p", "div", "br", "li", "ul", "ol", "tr", "table", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
        "pre", "hr", "section", "article", "header", "footer", "title",
    ]
    /// Elements whose content is not text.
    static let hiddenElements: Set<String> = ["script", "style", "head"]

    static func plainText(_ html: String) -> String {
        var output = String.UnicodeScalarView()
        var pendingSpace = false
        var pendingBreaks = 0
        var hiddenUntil: String?

        func emit(_ scalar: Unicode.Scalar) {
            if pendingBreaks > 0 {
                if !output.isEmpty {
                    output.append(contentsOf: String(repeating: "\n", count: min(pendingBreaks, 2)).unicodeScalars)
                }
                pendingBreaks = 0
                pendingSpace = false
            } else if pendingSpace {
                if !output.isEmpty { output.append(" ") }
                pendingSpace = false
            }
            output.append(scalar)
        }

        let scalars = Array(html.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "<" {
                guard let close = scalars[index...].firstIndex(of: ">") else {
                    emit(scalar)
                    index += 1
                    continue
                }
                let tag = String(String.UnicodeScalarView(scalars[(index + 1)..<close]))
                index = close + 1
                if tag.hasPrefix("!--") {
                    // A comment may contain ">"; skip to "-->".
                    if !tag.hasSuffix("--"), let end = find("-->", in: scalars, from: close) { index = end + 3 }
                    continue
                }
                let isEnd = tag.hasPrefix("/")
                let name = String(
                    tag.drop(while: { $0 == "/" }).prefix(while: { $0.isLetter || $0.isNumber }).lowercased()
                )
                if let hidden = hiddenUntil {
                    if isEnd, name == hidden { hiddenUntil = nil }
                    continue
                }
                if !isEnd, hiddenElements.contains(name), !tag.hasSuffix("/") {
                    hiddenUntil = name
                    continue
                }
                if name == "br" {
                    if output.isEmpty && pendingBreaks == 0 { continue }
                    pendingBreaks += 1
                } else if name == "p" || name == "div" || name.first == "h" && name.count == 2 {
                    if !output.isEmpty { pendingBreaks = max(pendingBreaks, isEnd ? 2 : 1) }
                } else if blockElements.contains(name) {
                    if !output.isEmpty { pendingBreaks = max(pendingBreaks, 1) }
                } else if name == "td" || name == "th" {
                    if isEnd { pendingSpace = true }
                }
                continue
            }
            if hiddenUntil != nil {
                index += 1
                continue
            }
            if scalar == "&", let (decoded, length) = reference(scalars, at: index) {
                for character in decoded.unicodeScalars {
                    if character == "\u{00A0}" { emit(" ") } else { emit(character) }
                }
                index += length
                continue
            }
            if scalar.properties.isWhitespace {
                pendingSpace = true
            } else {
                emit(scalar)
            }
            index += 1
        }
        return String(output)
    }

    static func find(_ needle: String, in scalars: [Unicode.Scalar], from start: Int) -> Int? {
        let pattern = Array(needle.unicodeScalars)
        guard scalars.count >= pattern.count else { return nil }
        var index = start
        while index + pattern.count <= scalars.count {
            if Array(scalars[index..<(index + pattern.count)]) == pattern { return index }
            index += 1
        }
        return nil
    }

    /// The common named character references; the rest of the standard's list are rare in calendar bodies.
    static let named: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{00A0}", "ndash": "\u{2013}",
        "mdash": "\u{2014}", "hellip": "\u{2026}", "lsquo": "\u{2018}", "rsquo": "\u{2019}", "ldquo": "\u{201C}",
        "rdquo": "\u{201D}", "bull": "\u{2022}", "middot": "\u{00B7}", "copy": "\u{00A9}", "reg": "\u{00AE}",
        "trade": "\u{2122}", "euro": "\u{20AC}", "pound": "\u{00A3}", "yen": "\u{00A5}", "rarr": "\u{2192}",
        "larr": "\u{2190}", "auml": "ä", "ouml": "ö", "uuml": "ü", "Auml": "Ä", "Ouml": "Ö", "Uuml": "Ü",
        "szlig": "ß", "eacute": "é", "egrave": "è", "Eacute": "É", "agrave": "à", "aacute": "á", "ccedil": "ç",
        "ntilde": "ñ", "oacute": "ó", "iacute": "í", "uacute": "ú", "ecirc": "ê", "ocirc": "ô", "deg": "°",
        "times": "×", "shy": "", "zwnj": "", "zwj": "",
    ]

    /// Decodes `&name;`, `&#NNN;` or `&#xHH;` at `start`; returns the text and the length consumed.
    static func reference(_ scalars: [Unicode.Scalar], at start: Int) -> (String, Int)? {
        var end = start + 1
        while end < scalars.count, end - start <= 32, scalars[end] != ";" {
            if scalars[end] == "&" || scalars[end] == "<" || scalars[end].properties.isWhitespace { return nil }
            end += 1
        }
        guard end < scalars.count, scalars[end] == ";", end > start + 1 else { return nil }
        let body = String(String.UnicodeScalarView(scalars[(start + 1)..<end]))
        let length = end - start + 1
        if body.hasPrefix("#") {
            let digits = body.dropFirst()
            let value: UInt32?
            if digits.first == "x" || digits.first == "X" {
                value = UInt32(digits.dropFirst(), radix: 16)
            } else {
                value = UInt32(digits, radix: 10)
            }
            guard let value else { return nil }
            // NUL, surrogates and out-of-range values become U+FFFD, as the standard says.
            let scalar = Unicode.Scalar(value).flatMap { $0 == "\0" ? nil : $0 } ?? "\u{FFFD}"
            return (String(scalar), length)
        }
        guard let text = named[body] else { return nil }
        return (text, length)
    }
}

/// `HTMLText.plainText` gives what the previous conversion gave, for descriptions as calendars write them and for
/// text made of the pieces the conversion cares about, in any order.
struct HTMLTextEquivalenceTests {
    static let pieces = [
        "<", ">", "&", ";", "<!--", "-->", "--", "<br>", "<BR/>", "<P>", "</p>", "<div class=\"x\">", "</div>",
        "<script>", "</script>", "<style>", "</STYLE>", "<head>", "</head>", "<td>", "</td>", "<th>", "</th>",
        "<li>", "</ul>", "<h1>", "</h2>", "<hr/>", "<hr>", "<//br>", "</ br>", "<b>", "</b>", "<a href=\"u\">", "</a>",
        "&amp;", "&AMP;", "&#x2014;", "&#8212;", "&#0;", "&nbsp;", "&bogus;", "&lt", " ", "  ", "\n", "\t", "\r\n",
        "\u{00A0}", "\u{2003}", "\u{0085}", "é", "e\u{301}", "<é>", "<ü/>", "</é>", "<x\u{301}>", "😀", "a", "B", "9",
        "word", "/", "!", "=", "\"",
    ]

    /// Text from `pieces`, chosen by a fixed sequence so that a failure repeats.
    static func corpus(count: Int) -> [String] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        return (0..<count).map { _ in (0..<(1 + next(30))).map { _ in pieces[next(pieces.count)] }.joined() }
    }

    @Test func theConversionSaysWhatThePreviousOneSaid() {
        let descriptions = [
            "<p>Agenda for <b>Design review</b>:</p><ul><li>Review the open items &amp; decisions</li>"
                + "<li>Next steps</li></ul><p>Notes: <a href=\"https://docs.example.com/d/x/edit\">document</a><br>"
                + "Dial-in details below.</p>",
            "Bring the <b>draft</b><br>and the numbers &amp; charts",
            "<html><head><style>p{}</style></head><body><div>Agenda:&nbsp;Q1</div><!-- a > comment --></body></html>",
            "<table><tr><td>a</td><td>b</td></tr></table>", "<!---->x", "<!-- never closed", "a <",
        ]
        for text in descriptions + Self.corpus(count: 3_000) {
            #expect(HTMLText.plainText(text) == ReferenceHTMLText.plainText(text), "\(text.debugDescription)")
            #expect(HTMLText.looksLikeHTML(text) == ReferenceHTMLText.looksLikeHTML(text), "\(text.debugDescription)")
        }
    }
}
