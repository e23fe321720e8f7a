import Foundation
import Testing
import TetherCommandSupport
import TetherTestSupport

/// The tools the credential helper suites drive, found on `PATH`; a suite that needs a missing one is skipped.
enum HelperTools {
    static func path(of tool: String) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static var hasGitAndPython: Bool { path(of: "git") != nil && path(of: "python3") != nil }
    static var hasKubectlOpenSSLAndPython: Bool {
        path(of: "kubectl") != nil && path(of: "openssl") != nil && path(of: "python3") != nil
    }
}

extension CLI {
    /// Runs `tether arguments…` with `input` on standard input.
    func run(_ arguments: [String], input: String, environment extra: [String: String] = [:]) async throws -> Result {
        try await ChildProcess.run(
            [try Self.executable().path] + arguments,
            input: input,
            environment: environment.merging(extra) { _, new in new }
        )
    }

    /// A folder on `PATH` with `tether` under the names git and docker look for (`git-credential-tether`,
    /// `docker-credential-tether`), as a symbolic link, and `tether` itself.
    func helperLinks() throws -> URL {
        let folder = home.deletingLastPathComponent().appendingPathComponent("bin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let tether = try Self.executable().path
        for name in ["tether", "git-credential-tether", "docker-credential-tether"] {
            try FileManager.default.createSymbolicLink(
                atPath: folder.appendingPathComponent(name).path,
                withDestinationPath: tether
            )
        }
        return folder
    }

    /// An executable shell script in a fresh folder that appends a line to `called` each time it runs, and prints
    /// nothing: the stand-in for GIT_ASKPASS and BROWSER that shows whether anyone was asked.
    func recordingScript(named name: String) throws -> (script: URL, calls: URL) {
        let folder = home.deletingLastPathComponent().appendingPathComponent("probe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let calls = folder.appendingPathComponent("called")
        let script = folder.appendingPathComponent(name)
        try "#!/bin/sh\necho \"$@\" >> '\(calls.path)'\nexit 1\n".write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        return (script, calls)
    }
}

extension ChildProcess {
    /// Runs `command` with `input` on standard input, to completion.
    static func run(
        _ command: [String],
        input: String,
        environment: [String: String],
        timeout: Duration = .seconds(60)
    ) async throws -> Result {
        try await ChildProcess(command, input: Array(input.utf8), environment: environment).finish(timeout: timeout)
    }
}

/// A Python script written to a temporary folder and run as a server; it prints `listening PORT` on standard
/// error once it accepts connections.
struct ScriptServer: Sendable {
    let process: ChildProcess
    let port: Int
    let folder: URL

    static func start(script: String, arguments: [String], environment: [String: String]) async throws -> ScriptServer {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tether-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("server.py")
        try script.write(to: file, atomically: true, encoding: .utf8)
        let python = try #require(HelperTools.path(of: "python3"))
        let process = try ChildProcess([python, "-u", file.path] + arguments, environment: environment)
        let line = try await process.waitForErrorLine(timeout: .seconds(30)) { $0.hasPrefix("listening ") }
        let port = try #require(Int(line.dropFirst("listening ".count).trimmingCharacters(in: .whitespaces)))
        return ScriptServer(process: process, port: port, folder: folder)
    }

    func stop() {
        process.kill()
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Python sources of the stand-in servers.
enum StandInServers {
    /// A smart-HTTP git server: `git http-backend` as CGI, behind HTTP Basic authentication whose password must be
    /// an access token the development provider's userinfo endpoint accepts; otherwise 401 with a Basic
    /// challenge. Arguments: the folder of the repositories, the userinfo URL.
    static let git = #"""
        import base64, http.server, os, subprocess, sys, urllib.request

        ROOT, USERINFO = sys.argv[1], sys.argv[2]

        def accepted(header):
            if not header or not header.startswith("Basic "):
                return False
            try:
                user, _, password = base64.b64decode(header[6:]).decode().partition(":")
            except Exception:
                return False
            request = urllib.request.Request(USERINFO, headers={"Authorization": "Bearer " + password})
            try:
                with urllib.request.urlopen(request, timeout=10) as answer:
                    return answer.status == 200
            except Exception:
                return False

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def body(self):
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    data = b""
                    while True:
                        size = int(self.rfile.readline().strip().split(b";")[0], 16)
                        if size == 0:
                            self.rfile.readline()
                            return data
                        data += self.rfile.read(size)
                        self.rfile.readline()
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))

            def handle_any(self):
                data = self.body() if self.command == "POST" else b""
                if not accepted(self.headers.get("Authorization")):
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", 'Basic realm="tether-test"')
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                path, _, query = self.path.partition("?")
                env = dict(os.environ, GIT_PROJECT_ROOT=ROOT, GIT_HTTP_EXPORT_ALL="1", PATH_INFO=path,
                           QUERY_STRING=query, REQUEST_METHOD=self.command, REMOTE_USER="tether",
                           REMOTE_ADDR="127.0.0.1", CONTENT_TYPE=self.headers.get("Content-Type", ""),
                           CONTENT_LENGTH=str(len(data)), GIT_PROTOCOL=self.headers.get("Git-Protocol", ""),
                           HTTP_CONTENT_ENCODING=self.headers.get("Content-Encoding", ""))
                out = subprocess.run(["git", "http-backend"], input=data, env=env, capture_output=True).stdout
                head, _, payload = out.partition(b"\r\n\r\n")
                if not _:
                    head, _, payload = out.partition(b"\n\n")
                status, headers = 200, []
                for line in head.decode().splitlines():
                    name, _, value = line.partition(":")
                    if name.lower() == "status":
                        status = int(value.strip().split()[0])
                    elif name:
                        headers.append((name, value.strip()))
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = handle_any
            do_POST = handle_any

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print("listening", server.server_address[1], file=sys.stderr, flush=True)
        server.serve_forever()
        """#

    /// A stand-in for a Kubernetes API server over TLS: `GET /api` answers an `APIVersions` document to a bearer
    /// token the API server would accept, 401 otherwise. Mode `id` checks an OpenID Connect ID token as an API
    /// server configured for OIDC does (RS256 signature against the provider's JWKS, issuer, audience, expiry);
    /// mode `access` asks the development provider's userinfo endpoint. Arguments: certificate, key, mode, issuer,
    /// client id, userinfo URL.
    static let kubernetes = #"""
        import base64, http.server, json, ssl, sys, time, urllib.request, hashlib

        CERT, KEY, MODE, ISSUER, CLIENT, USERINFO = sys.argv[1:7]

        def b64(text):
            return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))

        def valid_id_token(token):
            try:
                header_part, payload_part, signature_part = token.split(".")
                header, claims = json.loads(b64(header_part)), json.loads(b64(payload_part))
                if header.get("alg") != "RS256":
                    return False
                with urllib.request.urlopen(ISSUER.rstrip("/") + "/jwks", timeout=10) as answer:
                    keys = json.load(answer)["keys"]
                key = next(k for k in keys if k.get("kid") == header.get("kid"))
                n, e = int.from_bytes(b64(key["n"]), "big"), int.from_bytes(b64(key["e"]), "big")
                size = (n.bit_length() + 7) // 8
                signed = pow(int.from_bytes(b64(signature_part), "big"), e, n).to_bytes(size, "big")
                digest = hashlib.sha256((header_part + "." + payload_part).encode()).digest()
                info = bytes.fromhex("3031300d060960864801650304020105000420") + digest
                expected = b"\x00\x01" + b"\xff" * (size - len(info) - 3) + b"\x00" + info
                audience = claims.get("aud")
                audiences = audience if isinstance(audience, list) else [audience]
                return (signed == expected and claims.get("iss") == ISSUER and CLIENT in audiences
                        and claims.get("exp", 0) > time.time())
            except Exception:
                return False

        def valid_access_token(token):
            request = urllib.request.Request(USERINFO, headers={"Authorization": "Bearer " + token})
            try:
                with urllib.request.urlopen(request, timeout=10) as answer:
                    return answer.status == 200
            except Exception:
                return False

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def reply(self, status, document):
                body = json.dumps(document).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                header = self.headers.get("Authorization", "")
                token = header[7:] if header.startswith("Bearer ") else ""
                good = token and (valid_id_token(token) if MODE == "id" else valid_access_token(token))
                if not good:
                    self.reply(401, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                     "message": "Unauthorized", "reason": "Unauthorized", "code": 401})
                elif self.path == "/api":
                    address = "127.0.0.1:%d" % self.server.server_address[1]
                    self.reply(200, {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs":
                                     [{"clientCIDR": "0.0.0.0/0", "serverAddress": address}]})
                else:
                    self.reply(404, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                     "message": "not found", "reason": "NotFound", "code": 404})

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(CERT, KEY)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        print("listening", server.server_address[1], file=sys.stderr, flush=True)
        server.serve_forever()
        """#
}
