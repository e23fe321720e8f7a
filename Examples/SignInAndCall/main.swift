// Signs in with the device flow (RFC 8628), then calls an API with `AuthorizedClient`, which adds the access
// token, refreshes it before it expires and retries once after a 401.
//
//   swift run SignInAndCall [ISSUER] [API-URL]
//
// ISSUER defaults to the development provider (`swift run tether-cli dev-provider`), API-URL to the issuer's userinfo
// endpoint. TETHER_CLIENT_ID sets the client id (default: the development provider's `tether-dev-client`).

import Foundation
import HTTPTypes
import HTTPTypesFoundation
import Tether
import TetherOAuth
import TetherURLSession

let environment = ProcessInfo.processInfo.environment
let arguments = Array(CommandLine.arguments.dropFirst())
let issuer = arguments.first ?? environment["TETHER_ISSUER"] ?? "http://127.0.0.1:8123"
let clientID = environment["TETHER_CLIENT_ID"] ?? "tether-dev-client"

// Where the provider's endpoints are: its discovery document.
let transport = URLSessionTransport()
let configuration = try await ProviderConfiguration.discover(
    issuer: issuer,
    clientID: clientID,
    transport: transport
)
let client = try OAuthClient(configuration: configuration, transport: transport)

// Sign in: the user opens a page on any device and enters the code.
let authorization = try await client.startDeviceAuthorization()
// Instructions go to standard error, results to standard output.
let standardError = FileHandle.standardError
standardError.write(Data("To sign in, open \(authorization.verificationURI.absoluteString)\n".utf8))
standardError.write(Data("and enter the code \(authorization.userCode)\n".utf8))
let result = try await client.waitForDeviceAuthorization(authorization)

// A session keeps the connection's record: here in memory; an app uses the keychain, a server the vault.
let session = Session(id: "example", store: MemoryStore(), refresher: client, revoker: client)
let account =
    result.account ?? Account(providerID: configuration.providerID, subject: "example", displayIdentifier: nil)
try await session.signIn(account: account, tokens: result.tokens)
standardError.write(Data("Signed in as \(account.maskedDisplayIdentifier ?? account.subject)\n".utf8))

// Call the API.
guard let api = arguments.dropFirst().first.flatMap(URL.init(string:)) ?? configuration.userinfoEndpoint else {
    standardError.write(Data("Give the API's URL: the provider has no userinfo endpoint\n".utf8))
    exit(2)
}
let authorized = AuthorizedClient(session: session, transport: transport)
let (response, body) = try await authorized.send(HTTPRequest(method: .get, url: api))
print("GET \(api.absoluteString): \(response.status.code)")
print(String(decoding: body, as: UTF8.self))

// Sign out: revokes the grant at the provider and removes the record.
try await session.signOut()
