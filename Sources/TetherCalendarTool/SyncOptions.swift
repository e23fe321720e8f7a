import TetherCommandSupport

/// `tether calendar sync`'s command line, when it is one this process runs: `--json`, `--days`, `--lead`,
/// `--budget` (each as `--days 7` or `--days=7`) and `-v`/`--verbose`, each at most once and in range. Anything
/// else is `tether-cli`'s, which parses it and says what is wrong.
struct SyncOptions: Equatable {
    var run = CalendarSyncRun()
    var verbose = false

    init?(_ commandLine: [String]) {
        guard commandLine.count >= 3, commandLine[1] == "calendar", commandLine[2] == "sync" else { return nil }
        var seen: Set<String> = []
        var words = commandLine.dropFirst(3).makeIterator()
        while let word = words.next() {
            // `--days=` keeps its empty value, which the argument parser refuses: so is it here.
            let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard let name = parts.first, !name.isEmpty, !seen.contains(name) else { return nil }
            seen.insert(name)
            switch name {
            case "--json", "--verbose", "-v":
                guard parts.count == 1 else { return nil }
                if name == "--json" { run.json = true } else { verbose = true }
            case "--days", "--lead", "--budget":
                guard let text = parts.count == 2 ? parts[1] : words.next(), !text.isEmpty, !text.hasPrefix("-"),
                    let value = Int(text)
                else { return nil }
                switch name {
                case "--days": run.days = value
                case "--lead": run.lead = value
                default: run.budget = value
                }
            default:
                return nil
            }
        }
        guard run.problem == nil else { return nil }
    }
}
