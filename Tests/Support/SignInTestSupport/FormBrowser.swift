package import Foundation
import HTTPTypes
import Tether
package import TetherDevProvider
package import TetherOAuth
package import TetherTestSupport
package import TetherURLSession

/// Plays a person at the development provider's sign-in page over real HTTP (through the provider's
/// `DevProvider.SignInAgent`): loads the page, fills the form and returns where the provider redirects.
package struct FormBrowser: Sendable {
    package var username = "ada"
    package var password = "lovelace"
    package var decision = "allow"
    package let transport = URLSessionTransport()

    package init(username: String = "ada", password: String = "lovelace", decision: String = "allow") {
        self.username = username
        self.password = password
        self.decision = decision
    }

    package var agent: DevProvider.SignInAgent {
        let transport = transport
        return DevProvider.SignInAgent(username: username, password: password, allows: decision == "allow") {
            request,
            body in try await transport.send(request, body: body)
        }
    }

    /// Opens `url` (an authorization or device verification page) and submits the form.
    /// - Returns: The `Location` of the provider's redirect, or `nil` when it answered with a page.
    package func submit(_ url: URL, extraFields: [String: String] = [:]) async throws -> (location: URL?, page: String)
    {
        try await agent.submit(url, extraFields: extraFields)
    }

    /// A presenter whose "user" is this browser; it records the authorization URLs it was shown.
    package func presenter(
        redirectURI: URL = URL(string: "http://127.0.0.1:45678/callback")!,
        shown: LockedURLs = LockedURLs()
    ) -> ProgrammaticPresenter {
        ProgrammaticPresenter(redirectURI: redirectURI) { url in
            shown.append(url)
            return try await self.agent.authorize(url)
        }
    }
}
