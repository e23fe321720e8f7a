import Hummingbird
import NIOCore

/// The request context; it keeps the channel so the fault middleware can drop connections.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
struct DevRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }

    var maxUploadSize: Int { 64 * 1024 }
}
