import Foundation
package import Tether
import TetherOAuth

/// A connection's own rules for how long its grant lives (`tether login … --grant-inactivity 90d
/// --grant-lifetime 7d`), kept in connections.json; they replace the preset's rule of the same kind. `0` switches
/// a rule off. `nil` fields keep the preset's.
package struct GrantLifetimeSetting: Sendable, Codable, Equatable {
    /// The grant ends when unused this many seconds; `0` for no such rule.
    package var inactivitySeconds: Int64?
    /// The refresh token ends this many seconds after it was issued; `0` for no such rule.
    package var maximumAgeSeconds: Int64?

    /// The setting after a login's options: each option given replaces the existing value; `nil` when nothing is
    /// set.
    /// - Throws: ``CLIFailure`` (usage) for a duration that cannot be read.
    package static func merged(
        existing: GrantLifetimeSetting?,
        inactivity: String?,
        lifetime: String?
    ) throws -> GrantLifetimeSetting? {
        var setting = existing ?? GrantLifetimeSetting()
        if let inactivity { setting.inactivitySeconds = try seconds(inactivity, option: "--grant-inactivity") }
        if let lifetime { setting.maximumAgeSeconds = try seconds(lifetime, option: "--grant-lifetime") }
        return setting == GrantLifetimeSetting() ? nil : setting
    }

    /// The rules of a connection made from `preset` (the stored name: `google`, `microsoft`, `github`, `dev`,
    /// `oidc`…), with `setting` applied; `nil` when nothing is known beyond the provider's answers.
    package static func rules(preset: String, providerID: String, setting: GrantLifetimeSetting?) -> GrantLifetime? {
        var rules: GrantLifetime? =
            switch preset {
            case "google": .google
            case "microsoft": .microsoft
            case "github": .gitHub
            default: nil
            }
        guard let setting else { return rules }
        var changed = rules ?? GrantLifetime(provider: providerID)
        if let seconds = setting.inactivitySeconds {
            changed.inactivityLimit = seconds > 0 ? .seconds(seconds) : nil
        }
        if let seconds = setting.maximumAgeSeconds {
            changed.maximumAge = seconds > 0 ? .seconds(seconds) : nil
            // The preset's note speaks of its own rule, not of this one.
            changed.absoluteNote = nil
        }
        rules = changed
        return rules
    }

    /// Reads a duration such as `90d`, `12h`, `30m`, `45s` or a number of seconds; `0` means none.
    /// - Throws: ``CLIFailure`` (usage) naming `option`.
    package static func seconds(_ text: String, option: String) throws -> Int64 {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 7 * 86_400]
        var digits = Substring(trimmed)
        var unit: Int64 = 1
        if let last = trimmed.last, let factor = units[last] {
            unit = factor
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
            let value = Int64(digits), value <= 100 * 365 * 86_400 / unit
        else {
            throw CLIFailure(
                .usage,
                "\(option) takes a duration such as 90d, 12h, 30m or 45s (at most 100 years), not "
                    + "'\(UntrustedText.forTerminal(text))'"
            )
        }
        return value * unit
    }
}

extension Profile {
    /// The connection's grant-lifetime rules: its preset's, with its own setting applied.
    package var grantRules: GrantLifetime? {
        GrantLifetimeSetting.rules(preset: preset, providerID: provider.providerID, setting: grantLifetime)
    }
}
