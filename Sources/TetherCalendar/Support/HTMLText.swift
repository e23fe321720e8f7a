/// Converts an HTML body (Graph's `body` with `contentType` `html`, Google's HTML descriptions) to plain text:
/// tags removed, `<script>` and `<style>` content dropped, character references decoded (HTML Living Standard
/// §13.2.5.72–80), `<br>` and the ends of block elements turned into line breaks, other whitespace collapsed as
/// a browser renders it.
enum HTMLText {
    /// Whether `text` contains something that looks like a tag or a character reference.
    static func looksLikeHTML(_ text: String) -> Bool {
        var previousWasOpen = false
        for scalar in text.unicodeScalars {
            if previousWasOpen, scalar.properties.isAlphabetic || scalar == "/" || scalar == "!" { return true }
            previousWasOpen = scalar == "<"
        }
        return text.contains("&") && text.contains(";") && plainText(text) != text
    }

    /// Whether the element's start and end separate lines.
    private static func isBlock(_ name: String) -> Bool {
        switch name {
        case "p", "div", "br", "li", "ul", "ol", "tr", "table", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
            "pre", "hr", "section", "article", "header", "footer", "title":
            true
        default: false
        }
    }

    /// Whether the element's content is not text.
    private static func isHidden(_ name: String) -> Bool {
        name == "script" || name == "style" || name == "head"
    }

    static func plainText(_ html: String) -> String {
        // UTF-8 out; the text's scalars in. Tags of ASCII (all of them, in practice) are read in place; another is
        // read as a String, as the characters it is made of decide.
        var output: [UInt8] = []
        output.reserveCapacity(html.utf8.count)
        var pendingSpace = false
        var pendingBreaks = 0
        var hiddenUntil: String?

        func emit(_ scalar: Unicode.Scalar) {
            if pendingBreaks > 0 {
                if !output.isEmpty { output.append(contentsOf: repeatElement(0x0A, count: min(pendingBreaks, 2))) }
                pendingBreaks = 0
                pendingSpace = false
            } else if pendingSpace {
                if !output.isEmpty { output.append(0x20) }
                pendingSpace = false
            }
            if scalar.isASCII {
                output.append(UInt8(scalar.value))
            } else {
                UTF8.encode(scalar) { output.append($0) }
            }
        }

        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(html.utf8.count)
        scalars.append(contentsOf: html.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "<" {
                guard let close = scalars[index...].firstIndex(of: ">") else {
                    emit(scalar)
                    index += 1
                    continue
                }
                let tag = Tag(scalars[(index + 1)..<close])
                index = close + 1
                if tag.isComment {
                    // A comment may contain ">"; skip to "-->".
                    if !tag.endsComment, let end = find(comment: scalars, from: close) { index = end + 3 }
                    continue
                }
                let name = tag.name
                if let hidden = hiddenUntil {
                    if tag.isEnd, name == hidden { hiddenUntil = nil }
                    continue
                }
                if !tag.isEnd, isHidden(name), !tag.isSelfClosing {
                    hiddenUntil = name
                    continue
                }
                if name == "br" {
                    if output.isEmpty && pendingBreaks == 0 { continue }
                    pendingBreaks += 1
                } else if name == "p" || name == "div" || name.first == "h" && name.count == 2 {
                    if !output.isEmpty { pendingBreaks = max(pendingBreaks, tag.isEnd ? 2 : 1) }
                } else if isBlock(name) {
                    if !output.isEmpty { pendingBreaks = max(pendingBreaks, 1) }
                } else if name == "td" || name == "th" {
                    if tag.isEnd { pendingSpace = true }
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
            if isWhitespace(scalar) {
                pendingSpace = true
            } else {
                emit(scalar)
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// `White_Space`, without the property table for ASCII.
    private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar == " " || (0x09...0x0D).contains(scalar.value) }
        return scalar.properties.isWhitespace
    }

    /// What is between `<` and `>`: a comment, or an element's start or end and its name (letters and digits after
    /// any `/`, lowercased).
    private struct Tag {
        let isComment: Bool
        /// A comment that ends in the tag itself (`<!-- … -->` without `>` inside).
        let endsComment: Bool
        let isEnd: Bool
        let isSelfClosing: Bool
        let name: String

        init(_ scalars: ArraySlice<Unicode.Scalar>) {
            guard scalars.allSatisfy(\.isASCII) else {
                let text = String(String.UnicodeScalarView(scalars))
                isComment = text.hasPrefix("!--")
                endsComment = text.hasSuffix("--")
                isEnd = text.hasPrefix("/")
                isSelfClosing = text.hasSuffix("/")
                name = String(
                    text.drop(while: { $0 == "/" }).prefix(while: { $0.isLetter || $0.isNumber }).lowercased()
                )
                return
            }
            isComment = scalars.starts(with: ["!", "-", "-"])
            endsComment = scalars.count >= 2 && scalars.suffix(2).elementsEqual(["-", "-"])
            isEnd = scalars.first == "/"
            isSelfClosing = scalars.last == "/"
            var name = ""
            for scalar in scalars.drop(while: { $0 == "/" }) {
                let value = scalar.value
                if (0x61...0x7A).contains(value) || (0x30...0x39).contains(value) {
                    name.unicodeScalars.append(scalar)
                } else if (0x41...0x5A).contains(value) {
                    name.unicodeScalars.append(Unicode.Scalar(UInt8(value + 0x20)))
                } else {
                    break
                }
            }
            self.name = name
        }
    }

    /// The index of the next `-->` at or after `start`.
    private static func find(comment scalars: [Unicode.Scalar], from start: Int) -> Int? {
        var index = start
        while index + 3 <= scalars.count {
            if scalars[index] == "-", scalars[index + 1] == "-", scalars[index + 2] == ">" { return index }
            index += 1
        }
        return nil
    }

    /// The common named character references; the rest of the standard's list are rare in calendar bodies.
    private static let named: [String: String] = [
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
    private static func reference(_ scalars: [Unicode.Scalar], at start: Int) -> (String, Int)? {
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
