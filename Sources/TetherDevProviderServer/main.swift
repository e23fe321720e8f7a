import Foundation
import Logging
import TetherDevProvider

// `tether-dev-provider [--port N] [--access-token-lifetime SECONDS] [--dialect NAME] [--jwt-access-tokens]`
// Runs the development OAuth 2.0 / OpenID Connect provider in the foreground on 127.0.0.1.

let usage = """
    USAGE: tether-dev-provider [--port N] [--access-token-lifetime SECONDS] [--dialect standard|google|microsoft|firebase|apple]
                               [--jwt-access-tokens] [--verbose]

    Runs a local OAuth 2.0 / OpenID Connect provider on 127.0.0.1 until interrupted. It signs in the user
    ada / lovelace for the public client tether-dev-client (loopback redirects on any port).
    """

func fail(_ message: String) {
    FileHandle.standardError.write(Data("tether-dev-provider: \(message)\n".utf8))
}

var configuration = DevProvider.Configuration(port: 8123)
var verbose = false
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--port":
        guard let value = arguments.next().flatMap(Int.init), (0...65535).contains(value) else {
            fail("--port needs a number from 0 to 65535")
            exit(2)
        }
        configuration.port = value
    case "--access-token-lifetime":
        guard let value = arguments.next().flatMap(Int.init), value > 0 else {
            fail("--access-token-lifetime needs a number of seconds above 0")
            exit(2)
        }
        configuration.accessTokenLifetime = .seconds(value)
    case "--dialect":
        switch arguments.next() {
        case "standard": configuration.dialect = .standard
        case "google": configuration.dialect = .google
        case "microsoft": configuration.dialect = .microsoft
        case "firebase": configuration.dialect = .firebase
        case "apple": configuration.dialect = .apple
        default:
            fail("--dialect is one of standard, google, microsoft, firebase, apple")
            exit(2)
        }
    case "--jwt-access-tokens":
        configuration.accessTokenFormat = .jwt
    case "--verbose", "-v":
        verbose = true
    case "--help", "-h":
        print(usage)
        exit(0)
    default:
        FileHandle.standardError.write(Data("tether-dev-provider: unknown option '\(argument)'\n\n\(usage)\n".utf8))
        exit(2)
    }
}

var logger = Logger(label: "tether.dev-provider")
logger.logLevel = verbose ? .debug : .info
print("Issuer:    http://\(configuration.host):\(configuration.port)")
print("Discovery: http://\(configuration.host):\(configuration.port)/.well-known/openid-configuration")
print("Client id: tether-dev-client (public, PKCE S256, loopback redirects on any port)")
print("User:      ada / lovelace")
fflush(nil)
try await DevProvider(configuration, logger: logger).run()
