import NIOCore

/// NIO's `init(synchronouslyWrapping:configuration:)`, reached through a protocol: it is deprecated in favour of
/// scoped `executeThenClose`, which every served connection uses, but it is the only initializer that finishes
/// a wrapper that is dropped before being served, as happens to a connection accepted while the server stops.
protocol FinishingOnDeinitWrapping {
    init(
        synchronouslyWrapping channel: any Channel,
        configuration: VarlinkServerChannel.Configuration
    ) throws
}

extension NIOAsyncChannel: FinishingOnDeinitWrapping where Inbound == VarlinkRequest, Outbound == ByteBuffer {}

extension NIOAsyncChannel where Inbound == VarlinkRequest, Outbound == ByteBuffer {
    /// Wraps `channel`, closing it and finishing its writer if the wrapper is deinitialized unused.
    static func finishingOnDeinit(wrapping channel: any Channel) throws -> Self {
        try Self.wrap(channel, as: Self.self)
    }

    private static func wrap<Wrapper: FinishingOnDeinitWrapping>(
        _ channel: any Channel,
        as type: Wrapper.Type
    ) throws -> Wrapper {
        try Wrapper(synchronouslyWrapping: channel, configuration: .init())
    }
}
