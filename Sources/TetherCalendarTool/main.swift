import CMallocTuning
import Dispatch
import Foundation
import TetherCommandSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// `tether-calendar`: `tether calendar sync` in a process that links only what the sync needs (no argument parser,
// JWT, PostgreSQL or Hummingbird), which the launcher runs for it. It runs the same code as `tether-cli`'s command
// (`CalendarSyncRun`) and prints the same. Any other command line, a shared store, `--help`, an option out of
// range, and any refresh are `tether-cli`'s: this process is replaced with it, with the same arguments, before
// anything was printed. See docs/decisions.md §49.

FullTool.keepSignalMask()
let arguments = CommandLine.arguments
let environment = ProcessInfo.processInfo.environment
guard let options = SyncOptions(arguments), (environment["TETHER_STORE"] ?? "").isEmpty else {
    FullTool.run(arguments)
}

// A process this short lives best with one malloc arena that grows in large steps: each thread's own arena would
// grow a page at a time (an `mprotect` each), about 2 ms of the sync's 20 (docs/decisions.md §49).
tether_tune_malloc_for_short_process()

// The sync will send requests: the event loop threads start while the vault and the cache are read.
Task.detached { CommandHome.startTransport(environment: environment) }

// The sync runs in a task that ends the process with `exit` once its output is written, while this thread waits.
Task.detached {
    let terminal = Terminal(environment: environment)
    do {
        let workspace = try CalendarToolWorkspace(environment: environment, verbose: options.verbose)
        exit(try await options.run.run(in: workspace).rawValue)
    } catch {
        let failure = CLIFailure.from(error)
        terminal.report(failure)
        exit(failure.status.rawValue)
    }
}
DispatchSemaphore(value: 0).wait()
