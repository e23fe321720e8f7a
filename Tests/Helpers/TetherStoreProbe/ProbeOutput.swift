import Foundation

/// Writes a line to standard output right away, so that a parent process waiting for it sees it.
func probeSay(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Writes a line to standard error.
func probeFail(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
