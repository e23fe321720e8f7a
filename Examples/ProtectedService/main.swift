// A Hummingbird service whose `/hello` route needs a valid bearer token: a JWT access token (RFC 9068) from the
// issuer, checked by `BearerTokenMiddleware` with the issuer's published keys.
//
//   swift run tether-cli dev-provider --jwt-access-tokens      # in another terminal
//   swift run ProtectedService [ISSUER] [AUDIENCE]
//   swift run tether-cli token | sed 's/^/Authorization: Bearer /' | curl -H @- http://127.0.0.1:8080/hello
//
// ISSUER defaults to the development provider; AUDIENCE (the `aud` the tokens must name) to ISSUER/resource,
// the audience of the development provider's access tokens. PORT sets the port (8080).

import Foundation
import Hummingbird
import TetherHummingbird
import TetherOAuth
import TetherServer
import TetherURLSession

let environment = ProcessInfo.processInfo.environment
let arguments = Array(CommandLine.arguments.dropFirst())
let issuer = arguments.first ?? environment["TETHER_ISSUER"] ?? "http://127.0.0.1:8123"
let audience = arguments.dropFirst().first ?? "\(issuer)/resource"
let port = environment["PORT"].flatMap(Int.init) ?? 8080

// The issuer's key set comes from its discovery document.
let transport = URLSessionTransport()
let provider = try await ProviderConfiguration.discover(issuer: issuer, clientID: "unused", transport: transport)
guard let keys = provider.jwksURI else {
    print("\(issuer) publishes no key set (jwks_uri)")
    exit(2)
}
let verifier = AccessTokenVerifier.oidc(issuer: issuer, jwksURL: keys, audience: audience, transport: transport)

/// Serves `/hello` behind the bearer-token middleware until the process is stopped.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
func serve(verifier: AccessTokenVerifier, port: Int, banner: String) async throws {
    let router = Router(context: BearerRequestContext.self)
    router.add(middleware: BearerTokenMiddleware(verifier: verifier))
    router.get("/hello") { _, context -> String in
        // The middleware ran: the token is verified, and says who is calling.
        let token = context.verifiedToken
        return "Hello, \(token?.subject ?? "nobody") (scopes: \(token?.scopes.joined(separator: " ") ?? ""))\n"
    }
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
    print(banner)
    try await app.runService()
}

guard #available(macOS 14, iOS 17, tvOS 17, visionOS 1, *) else {
    print("Hummingbird needs macOS 14 or later")
    exit(2)
}
try await serve(
    verifier: verifier,
    port: port,
    banner: "Listening on http://127.0.0.1:\(port)/hello; tokens from \(issuer) for \(audience)"
)
