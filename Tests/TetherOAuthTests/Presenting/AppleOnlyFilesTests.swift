import Foundation
import Testing

extension Presenting {
    /// Every Apple-only import under `Sources/` has a shim on the other side, so no line is left uncompiled off
    /// Apple platforms: `#if canImport(X)`, `import X`, `#else`, `import XShim` (or another `…Shim` module).
    struct AppleOnlyFilesTests {
        /// Frameworks that exist only on Apple platforms.
        static let appleOnlyFrameworks: Set<String> = [
            "AuthenticationServices", "EventKit", "Security", "LocalAuthentication", "UIKit", "AppKit",
            "BackgroundTasks",
        ]

        @Test func everyAppleOnlyImportHasAShimOnTheOtherSide() throws {
            let sources = URL(filePath: #filePath)
                .deletingLastPathComponent()  // Presenting
                .deletingLastPathComponent()  // TetherOAuthTests
                .deletingLastPathComponent()  // Tests
                .deletingLastPathComponent()  // the package
                .appending(path: "Sources")
            let enumerator = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            var checked = 0
            var missing: [String] = []
            for case let file as URL in enumerator where file.pathExtension == "swift" {
                let text = try String(contentsOf: file, encoding: .utf8)
                let relative = String(file.path.dropFirst(sources.deletingLastPathComponent().path.count + 1))
                missing += Self.importsWithoutShim(in: text).map { "\(relative):\($0.line): import \($0.module)" }
                checked += 1
            }
            #expect(checked > 0)
            #expect(
                missing.isEmpty,
                "Apple-only imports without `#if canImport(X)` … `#else` `import …Shim`:\n\(missing.sorted().joined(separator: "\n"))"
            )
        }

        @Test func checkerAcceptsAShimmedImport() {
            let text = """
                #if canImport(EventKit)
                public import EventKit
                #else
                public import EventKitShim
                #endif
                """
            #expect(Self.importsWithoutShim(in: text).isEmpty)
        }

        @Test(arguments: [
            "#if canImport(UIKit)\nimport UIKit\n#endif",
            "#if os(iOS)\nimport UIKit\n#else\nimport UIKitShim\n#endif",
            "import Security",
            "#if canImport(AppKit)\n@preconcurrency import AppKit\n#else\nimport Foundation\n#endif",
        ])
        func checkerFlagsAnUnshimmedImport(text: String) {
            #expect(Self.importsWithoutShim(in: text).count == 1)
        }

        /// One `#if` block being read: its condition, whether the `#else` branch is being read, and the imports
        /// that are fine if that branch imports a shim.
        private struct Block {
            var condition: String
            var isInElse = false
            var elseImportsShim = false
            var waiting: [(line: Int, module: String)] = []
        }

        /// The Apple-only imports of a file that are not in `#if canImport(X)` with a shim import in its `#else`.
        static func importsWithoutShim(in text: String) -> [(line: Int, module: String)] {
            let importPattern =
                #/
                ^(?:@\w+\s+)*
                (?:(?:public|package|internal|fileprivate|private)\s+)?
                import\s+
                (?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?
                (\w+)
                /#
            var blocks: [Block] = []
            var missing: [(line: Int, module: String)] = []
            for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(rawLine.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false)[0])
                    .trimmingCharacters(in: .whitespaces)
                if line.hasPrefix("#if ") {
                    blocks.append(Block(condition: line.dropFirst(4).filter { !$0.isWhitespace }))
                } else if line.hasPrefix("#elseif ") {
                    // Imports in an `#elseif` branch are not under `canImport(X)` of their own block.
                    blocks[blocks.count - 1].condition = "#elseif"
                } else if line == "#else" {
                    blocks[blocks.count - 1].isInElse = true
                } else if line == "#endif" {
                    if let block = blocks.popLast(), !block.elseImportsShim { missing += block.waiting }
                } else if let match = line.firstMatch(of: importPattern) {
                    let module = String(match.1)
                    if module.hasSuffix("Shim"), blocks.last?.isInElse == true {
                        blocks[blocks.count - 1].elseImportsShim = true
                    }
                    guard appleOnlyFrameworks.contains(module) else { continue }
                    if let block = blocks.last, !block.isInElse, block.condition == "canImport(\(module))" {
                        blocks[blocks.count - 1].waiting.append((index + 1, module))
                    } else {
                        missing.append((index + 1, module))
                    }
                }
            }
            return missing
        }
    }
}
