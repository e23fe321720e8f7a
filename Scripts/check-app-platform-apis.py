#!/usr/bin/env python3
"""Fails when code that an iOS, tvOS, watchOS or visionOS app compiles uses an API Apple documents for macOS only.

The app products (Tether with TetherVaultCore, TetherOAuth, TetherURLSession, TetherKeychain, TetherCalendar,
TetherFlights) are read file by file; each `#if` / `#elseif` / `#else` / `#endif` condition is evaluated for each app
platform (`os(...)`, `canImport(...)` of the frameworks that platform has, `targetEnvironment(...)`), and the lines
compiled there are searched for the APIs below. Code under `#if os(macOS)`, `#if canImport(Glibc)` and the like is
left alone, as is an `#else` of an `os(iOS) || …` branch.

Usage: Scripts/check-app-platform-apis.py [FILE ...]   (no files: every Swift file of the app products)
"""
import pathlib
import re
import sys

APP_TARGETS = [
    "Tether", "TetherVaultCore", "TetherOAuth", "TetherURLSession", "TetherKeychain", "TetherCalendar", "TetherFlights",
]

# APIs Apple marks macOS-only (or unavailable on the other platforms), with the page that says so.
MACOS_ONLY = {
    r"\bProcess\s*\(": "Process (https://developer.apple.com/documentation/foundation/process): macOS, Mac Catalyst",
    r"\.executableURL\b": "Process.executableURL: macOS only",
    r"\bNSTask\b": "NSTask: macOS only",
    r"\bNSWorkspace\b": "NSWorkspace (AppKit): macOS only",
    r"\bHost\s*\.\s*current\b": "Host.current(): macOS only",
    r"\bhomeDirectoryForCurrentUser\b": "FileManager.homeDirectoryForCurrentUser: macOS only",
    r"\bposix_spawnp?\s*\(": "posix_spawn: unavailable on iOS, tvOS, watchOS and visionOS",
    r"\bNSAppleScript\b": "NSAppleScript: macOS only",
}

PLATFORMS = {
    "iOS": {"Darwin", "Foundation", "Security", "AuthenticationServices", "UIKit", "EventKit", "LocalAuthentication",
            "Network", "os", "BackgroundTasks", "Dispatch", "Combine", "Observation"},
    "tvOS": {"Darwin", "Foundation", "Security", "AuthenticationServices", "UIKit", "Network", "os", "Dispatch",
             "Combine", "Observation", "BackgroundTasks"},
    "watchOS": {"Darwin", "Foundation", "Security", "AuthenticationServices", "EventKit", "os", "Dispatch",
                "Combine", "Observation", "LocalAuthentication"},
    "visionOS": {"Darwin", "Foundation", "Security", "AuthenticationServices", "UIKit", "EventKit",
                 "LocalAuthentication", "Network", "os", "Dispatch", "Combine", "Observation", "BackgroundTasks"},
}


def evaluate(condition, platform):
    """Evaluates a compilation condition for `platform`; unknown flags and traits count as set."""
    frameworks = PLATFORMS[platform]
    expression = condition
    expression = re.sub(r"\bos\(\s*(\w+)\s*\)", lambda m: str(m.group(1) == platform), expression)
    expression = re.sub(r"\bcanImport\(\s*([\w.]+)[^)]*\)", lambda m: str(m.group(1) in frameworks), expression)
    expression = re.sub(r"\btargetEnvironment\(\s*\w+\s*\)", "False", expression)
    expression = re.sub(r"\b(compiler|swift|hasFeature|hasAttribute|arch|_endian|_pointerBitWidth)\([^)]*\)",
                        "True", expression)
    expression = expression.replace("&&", " and ").replace("||", " or ")
    expression = re.sub(r"!(?!=)", " not ", expression)
    expression = re.sub(r"\b(?!True\b|False\b|and\b|or\b|not\b)[A-Za-z_]\w*\b", "True", expression)
    return bool(eval(expression, {"__builtins__": {}}, {}))


def compiled_lines(text, platform):
    """Yields (line number, line) of the lines compiled for `platform`."""
    # Each frame: [branch taken so far, current branch active, enclosing active]
    stack = []
    active = True
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        directive = re.match(r"#(if|elseif|else|endif)\b(.*)", stripped)
        if directive:
            kind, rest = directive.group(1), directive.group(2).split("//")[0].strip()
            if kind == "if":
                value = evaluate(rest, platform)
                stack.append([value, value, active])
                active = active and value
            elif kind == "elseif":
                frame = stack[-1]
                value = not frame[0] and evaluate(rest, platform)
                frame[0] = frame[0] or value
                active = frame[2] and value
            elif kind == "else":
                frame = stack[-1]
                value = not frame[0]
                frame[0] = True
                active = frame[2] and value
            else:
                active = stack.pop()[2]
            continue
        if active:
            yield number, line


def uses(path, text):
    problems = []
    for platform in PLATFORMS:
        for number, line in compiled_lines(text, platform):
            code = line.split("//")[0]
            for pattern, reason in MACOS_ONLY.items():
                if re.search(pattern, code):
                    problems.append(f"{path}:{number}: {platform} compiles {reason}: {line.strip()}")
    return sorted(set(problems))


def main(arguments):
    root = pathlib.Path(__file__).resolve().parent.parent
    files = [pathlib.Path(a) for a in arguments] or sorted(
        file for target in APP_TARGETS for file in (root / "Sources" / target).rglob("*.swift"))
    problems = [problem for file in files for problem in uses(file, file.read_text())]
    for problem in problems:
        print(problem)
    print(f"check-app-platform-apis: {len(files)} files, {len(problems)} macOS-only uses in app code")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
