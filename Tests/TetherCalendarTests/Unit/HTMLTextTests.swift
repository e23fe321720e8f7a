import Testing

@testable import TetherCalendar

struct HTMLTextTests {
    @Test func outlookBodyBecomesPlainText() {
        let html = """
            <html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8">
            <style type="text/css">p { margin: 0 }</style></head>
            <body><div>Agenda:&nbsp;Q1 &amp; Q2</div><div><br></div>
            <p>Line one<br>Line&#32;two &lt;draft&gt; &#x2014; &quot;final&quot;</p><!-- a > comment -->
            <ul><li>First</li><li>Second</li></ul><script>alert(1)</script></body></html>
            """
        #expect(
            HTMLText.plainText(html)
                == "Agenda: Q1 & Q2\n\nLine one\nLine two <draft> \u{2014} \"final\"\n\nFirst\nSecond"
        )
    }

    @Test func whitespaceCollapsesAsABrowserShowsIt() {
        #expect(HTMLText.plainText("  a \n\n  b\t<b>c</b>  ") == "a b c")
    }

    @Test func unknownOrBrokenReferencesStayAsWritten() {
        #expect(HTMLText.plainText("AT&T &bogus; 5 &lt 6 &#xZZ;") == "AT&T &bogus; 5 &lt 6 &#xZZ;")
        #expect(HTMLText.plainText("&#0;&#x110000;") == "\u{FFFD}\u{FFFD}")
    }

    @Test func plainTextIsRecognisedAsNotHTML() {
        #expect(!HTMLText.looksLikeHTML("Gate 4 < 5, bring snacks & drinks"))
        #expect(HTMLText.looksLikeHTML("Call <b>now</b>"))
        #expect(HTMLText.looksLikeHTML("Tom &amp; Jerry"))
    }
}
