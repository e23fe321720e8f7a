import Foundation
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

/// `tether docker-credential` at the protocol level (no docker daemon here): what docker writes on standard input
/// and reads back.
@Suite(.timeLimit(.minutes(3)))
struct DockerCredentialCommandTests {
    @Test func dockerGetListAndTheKeychainNotFoundText() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        let login = try await cli.loginWithDeviceCode([
            "login", "dev", "--issuer", cli.issuer, "--device", "--docker-registry", "registry.example.com",
        ])
        #expect(login.status == 0, "\(login.stderr)")
        let docker = try cli.helperLinks().appendingPathComponent("docker-credential-tether").path
        func helper(_ operation: String, _ input: String) async throws -> CLI.Result {
            try await ChildProcess.run([docker, operation], input: input, environment: cli.environment)
        }
        let token = try await cli.run(["token", "dev"]).trimmedOutput

        let get = try await helper("get", "https://registry.example.com\n")
        #expect(get.status == 0, "\(get.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(get.stdout.utf8)) as? [String: String]
        #expect(
            object == ["ServerURL": "https://registry.example.com", "Username": "oauth2accesstoken", "Secret": token]
        )
        let missing = try await helper("get", "https://index.docker.io/v1/")
        #expect(missing.status == 1)
        #expect(missing.trimmedOutput == "credentials not found in native keychain")
        let list = try await helper("list", "")
        let registries = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: String]
        #expect(registries == ["registry.example.com": "oauth2accesstoken"])
        #expect(try await helper("store", #"{"ServerURL":"x","Username":"u","Secret":"s"}"#).status == 0)
        #expect(try await helper("erase", "https://registry.example.com").status == 0)
        // Same token after store and erase: the vault holds it, not docker.
        #expect(try await helper("get", "registry.example.com").stdout.contains(token))

        #expect(try await cli.run(["logout", "dev"]).status == 0)
        let signedOut = try await helper("get", "registry.example.com")
        #expect(signedOut.status == 3, "\(signedOut.stderr)")
        #expect(signedOut.stdout.contains("tether login dev"), "\(signedOut.stdout)")
    }
}
