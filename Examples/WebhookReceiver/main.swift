// A webhook receiver for `RefreshScheduler`'s events, as `WebhookNotifier` sends them: it checks the
// `Tether-Signature` header against the body as received, refuses a bad or stale signature, and handles each event
// once, whatever the number of deliveries (`Tether-Event-ID`).
//
//   TETHER_WEBHOOK_SECRET=… swift run WebhookReceiver [PORT]     listens on http://127.0.0.1:PORT/tether-webhook

import Foundation
import HTTPTypes
import Hummingbird
import TetherPostgres

guard let secretText = ProcessInfo.processInfo.environment["TETHER_WEBHOOK_SECRET"], !secretText.isEmpty else {
    FileHandle.standardError.write(Data("WebhookReceiver: set TETHER_WEBHOOK_SECRET to the notifier's secret\n".utf8))
    exit(2)
}
let secret = WebhookSecret(secretText)
let port = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 8090

/// The events handled within the signature's tolerance; a repeat within it is acknowledged and not handled again.
/// A real receiver keeps them where its other workers see them (its database).
actor SeenEvents {
    private var seen: [String: Date] = [:]

    /// Whether `id` is new; forgets identifiers older than ten minutes (twice the tolerance).
    func isNew(_ id: String, now: Date) -> Bool {
        seen = seen.filter { now.timeIntervalSince($0.value) < 600 }
        return seen.updateValue(now, forKey: id) == nil
    }
}

enum Output {
    /// Text from the event shown on one line, without control characters: it came over the network.
    static func printable(_ value: Any?) -> String {
        let text = String(describing: value ?? "-")
        return String(text.unicodeScalars.filter { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) }.prefix(200))
    }

    /// Writes a line to standard output at once (no buffer to lose).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

let seen = SeenEvents()
let router = Router()
router.post("/tether-webhook") { request, _ -> Response in
    let body = Data(try await request.body.collect(upTo: 64 * 1024).readableBytesView)
    guard let signature = request.headers[HTTPField.Name("Tether-Signature")!] else {
        return Response(status: .badRequest)
    }
    do {
        // The body exactly as received: parse it only after the signature holds.
        try WebhookSignature.verify(payload: body, header: signature, secret: secret, now: Date())
    } catch let error as WebhookSignatureError {
        Output.say("refused: \(error)")
        return Response(status: error == .malformedHeader ? .badRequest : .unauthorized)
    }
    guard let event = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
        let id = event["id"] as? String
    else { return Response(status: .badRequest) }
    if await seen.isNew(id, now: Date()) {
        let reason = (event["reason"] as? [String: Any])?["message"]
        let fields = [event["type"], event["connection"], event["account"], reason].map(Output.printable)
        Output.say(fields.joined(separator: " "))
    }
    return Response(status: .noContent)
}
let app = Application(
    router: router,
    configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port)),
    onServerRunning: { channel in
        let bound = channel.localAddress?.port ?? port
        FileHandle.standardError.write(Data("Listening on http://127.0.0.1:\(bound)/tether-webhook\n".utf8))
    }
)
try await app.runService()
