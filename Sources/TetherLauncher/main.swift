#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// `tether`: answers `tether token` itself when the vault holds a fresh token, and runs `tether-cli` with the same
// arguments and environment for everything else, so that both paths behave alike. See FastPath.swift and
// docs/decisions.md, "A launcher for fresh tokens".

let arguments = CommandLine.arguments
let environment = ProcessInfo.processInfo.environment
if let request = FastCommand.match(arguments, environment: environment),
    let output = request.answer(environment: environment, now: Date())
{
    LauncherOutput.write(output)
    LauncherOutput.exit(0)
}
FullTool.run(arguments)
