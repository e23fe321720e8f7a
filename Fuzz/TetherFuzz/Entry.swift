import Foundation
import Tether
import TetherOAuth

#if FUZZING
/// The target a fuzz run exercises, named by `TETHER_FUZZ_TARGET` (see Scripts/fuzz.sh).
let selectedTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["TETHER_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        fatalError("Set TETHER_FUZZ_TARGET to one of: \(names)")
    }
    return target
}()

/// libFuzzer's entry point; only the fuzz build (`-D FUZZING`, `-sanitize=fuzzer`) has it, and libFuzzer
/// supplies `main`.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    selectedTarget.run(data)
    return 0
}
#else
/// Without the fuzz build: runs files (a corpus, a crash reproducer) through a target, so the targets build and
/// run with the rest of the package; `tether-fuzz write-vault-seeds DIR` writes the vault's sealed seeds.
@main
enum ReplayTool {
    static func main() throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count >= 2 else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
            FileHandle.standardError.write(Data("usage: TetherFuzz <\(names)> FILE-OR-DIR…\n".utf8))
            FileHandle.standardError.write(Data("       TetherFuzz write-vault-seeds DIR\n".utf8))
            exit(64)
        }
        if arguments[0] == "write-vault-seeds" {
            try VaultSeeds.write(to: URL(fileURLWithPath: arguments[1]))
            return
        }
        guard let target = FuzzTarget(rawValue: arguments[0]) else {
            FileHandle.standardError.write(Data("unknown target \(arguments[0])\n".utf8))
            exit(64)
        }
        var count = 0
        for path in arguments.dropFirst() {
            for file in try files(at: URL(fileURLWithPath: path)) {
                target.run(try Data(contentsOf: file))
                count += 1
            }
        }
        print("\(target.rawValue): \(count) inputs, no failure")
    }

    private static func files(at url: URL) throws -> [URL] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return [] }
        guard isDirectory.boolValue else { return [url] }
        return try FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.path < $1.path }
    }
}
#endif
