/// The provider's HTML pages. The login page keeps a fixed contract that browser tests rely on:
/// `<form method="post">`, inputs `username` and `password` (id = name), and submit buttons
/// `allow` / `deny` named `decision`.
enum HTMLPages {
    /// Escapes text for HTML content and attribute values.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    private static func document(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title)) · Tether Dev Provider</title>
        <style>
        body { font-family: -apple-system, system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem; }
        label { display: block; margin-top: 0.75rem; }
        input { width: 100%; padding: 0.4rem; box-sizing: border-box; }
        .error { color: #b00020; }
        .buttons { margin-top: 1rem; display: flex; gap: 0.5rem; }
        code { background: #eee; padding: 0 0.2rem; }
        </style>
        </head>
        <body>
        \(body)
        </body>
        </html>
        """
    }

    /// Login and consent in one page.
    ///
    /// - Parameters:
    ///   - clientID: The requesting client, shown to the user.
    ///   - scopes: The requested scopes, listed for consent.
    ///   - username: Prefill for the username field (`login_hint`).
    ///   - requestID: The server-side pending request this form refers to.
    ///   - error: A message shown above the form (wrong password).
    static func login(
        clientID: String,
        scopes: [String],
        username: String?,
        requestID: String,
        error: String?
    ) -> String {
        let scopeItems =
            scopes.isEmpty
            ? "<li>Basic access</li>"
            : scopes.map { "<li><code>\(escape($0))</code></li>" }.joined(separator: "\n")
        let errorBlock = error.map { #"<p class="error" id="error" role="alert">\#(escape($0))</p>"# } ?? ""
        return document(
            title: "Sign in",
            body: """
                <h1>Sign in</h1>
                <p><strong id="client">\(escape(clientID))</strong> wants to access your account:</p>
                <ul id="scopes">
                \(scopeItems)
                </ul>
                \(errorBlock)
                <form method="post">
                <input type="hidden" name="request_id" value="\(escape(requestID))">
                <label for="username">Username</label>
                <input id="username" name="username" type="text" autocomplete="username" value="\(escape(username ?? ""))">
                <label for="password">Password</label>
                <input id="password" name="password" type="password" autocomplete="current-password">
                <div class="buttons">
                <button type="submit" id="allow" name="decision" value="allow">Allow</button>
                <button type="submit" id="deny" name="decision" value="deny">Deny</button>
                </div>
                </form>
                """
        )
    }

    /// An error shown instead of redirecting (bad client or redirect URI, RFC 6749 §4.1.2.1).
    static func error(title: String, message: String) -> String {
        document(
            title: title,
            body: """
                <h1>\(escape(title))</h1>
                <p class="error" id="error">\(escape(message))</p>
                """
        )
    }

    /// A plain message page (device approved or denied).
    static func message(title: String, message: String) -> String {
        document(
            title: title,
            body: """
                <h1 id="title">\(escape(title))</h1>
                <p id="message">\(escape(message))</p>
                """
        )
    }

    /// The device verification page: enter the user code shown on the device.
    static func deviceEntry(error: String?) -> String {
        let errorBlock = error.map { #"<p class="error" id="error" role="alert">\#(escape($0))</p>"# } ?? ""
        return document(
            title: "Connect a device",
            body: """
                <h1>Connect a device</h1>
                <p>Enter the code shown on your device.</p>
                \(errorBlock)
                <form method="get">
                <label for="user_code">Code</label>
                <input id="user_code" name="user_code" type="text" autocomplete="one-time-code" placeholder="ABCD-EFGH">
                <div class="buttons">
                <button type="submit" id="continue">Continue</button>
                </div>
                </form>
                """
        )
    }
}
