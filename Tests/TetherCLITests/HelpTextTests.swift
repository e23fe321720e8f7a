import ArgumentParser
import Testing
import TetherCommandSupport

@testable import TetherCLI

/// The help texts as a person reads them: the argument parser wraps prose to the width of the terminal (80 columns
/// when there is none), but it cannot wrap an example without breaking it, so every indented line of a discussion
/// (examples, tables, configuration snippets) fits within 80 columns as written.
struct HelpTextTests {
    /// Every command, its subcommands included, with its name as typed after `tether`.
    static func commands(
        _ command: any ParsableCommand.Type = TetherCommand.self,
        path: [String] = []
    ) -> [(name: String, type: any ParsableCommand.Type)] {
        let configuration = command.configuration
        let name = path + (path.isEmpty && command == TetherCommand.self ? [] : [configuration.commandName ?? ""])
        return [(name.joined(separator: " "), command)]
            + configuration.subcommands.flatMap { commands($0, path: name) }
    }

    @Test func everyIndentedLineOfEveryHelpFitsEightyColumns() {
        var long: [String] = []
        for (name, command) in Self.commands() {
            for line in command.configuration.discussion.split(separator: "\n", omittingEmptySubsequences: false)
            where line.first == " " && line.count > 80 {
                long.append("tether \(name): \(line.count) columns: \(line)")
            }
        }
        #expect(long.isEmpty, "\(long.joined(separator: "\n"))")
        #expect(Self.commands().count > 20)
    }
}
