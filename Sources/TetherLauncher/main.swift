#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// `tether`: answers `tether token` and the credential helpers' requests itself when the vault holds a fresh token,
// and runs `tether-cli` with the same arguments, environment and standard input for everything else, so that both
// paths behave alike. See FastPath.swift and docs/decisions.md, "A launcher for fresh tokens".

let arguments = CommandLine.arguments
// `tether calendar sync` has a process of its own, which hands to `tether-cli` what it does not do itself: run it
// before anything else is read.
FullTool.runCalendarSync(arguments)
let environment = ProcessInfo.processInfo.environment
if let request = FastCommand.match(arguments, environment: environment) {
    switch request.answer(environment: environment, now: Date()) {
    case .answered(let output):
        LauncherOutput.write(output)
        LauncherOutput.exit(0)
    case .fallBack(let input?):
        // What the caller wrote was read here: `tether-cli` gets the same bytes as its standard input.
        guard let home = FastPath.home(environment), StandardInput.replace(with: input.bytes, privateFolder: home)
        else {
            LauncherOutput.error("tether: cannot pass standard input on to \(FullTool.name).")
            LauncherOutput.exit(1)
        }
    case .fallBack(nil):
        break
    }
}
FullTool.run(arguments)
