import Foundation

// A helper process for the store tests: `TetherStoreProbe <subcommand> <arguments…>`.
// Each subcommand lives in its own file and returns the exit status.

let arguments = Array(CommandLine.arguments.dropFirst())
let subcommandArguments = Array(arguments.dropFirst())
let status: Int32

switch arguments.first {
case "write-loop": status = await writeLoop(subcommandArguments)
case "hold-lease": status = await holdLease(subcommandArguments)
case "refresh-loop": status = await refreshLoop(subcommandArguments)
case "read-record": status = await readRecord(subcommandArguments)
case "hold-keychain-lease": status = await holdKeychainLease(subcommandArguments)
#if canImport(TetherPostgres)
case "hold-postgres-lease": status = await holdPostgresLease(subcommandArguments)
#endif
default:
    probeFail(
        "usage: TetherStoreProbe write-loop <dir> <connection-id> <count> | hold-lease <dir> <id> <millis|input>"
            + " | refresh-loop <dir> <issuer-state> <id> <seconds> <lifetime-ms>"
            + " | read-record <dir> <id> | hold-keychain-lease <lease-dir> <service> <id>"
            + " | hold-postgres-lease <url> <tenant> <id> <lease-seconds>"
    )
    status = 64
}

exit(status)
