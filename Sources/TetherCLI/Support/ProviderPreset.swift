import ArgumentParser
import TetherCommandSupport

/// The provider presets `tether login` knows by name.
///
/// `CaseIterable` and `ExpressibleByArgument` give the login argument its help text and shell completion; the
/// argument itself stays a string because it also takes the name of a saved connection.
enum ProviderPreset: String, CaseIterable, ExpressibleByArgument, Sendable {
    case google
    case microsoft
    case github
    case dev
    case firebase
    case apple

    /// Reads a preset from the command line, ignoring case.
    init?(argument: String) {
        self.init(rawValue: argument.lowercased())
    }
}

/// What a connection signs in to: a preset, or any OAuth 2.0 / OpenID Connect server found through `--issuer`.
enum ProviderChoice: Equatable, Sendable {
    case preset(ProviderPreset)
    case issuer

    /// The name kept in connections.json (`Profile.preset`): the preset's, or `oidc` for `--issuer`.
    var storedName: String {
        switch self {
        case .preset(let preset): preset.rawValue
        case .issuer: "oidc"
        }
    }
}
