import NIOCore

/// Splits a byte stream into Varlink messages: each one is the bytes up to a NUL, which is dropped.
///
/// A message longer than `maximumMessageSize` bytes, complete or still arriving, fails the decoder with
/// ``VarlinkFrameTooLargeError``, which closes the connection. Bytes of an incomplete message at EOF are dropped.
struct VarlinkFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    /// The largest message accepted, without its NUL.
    let maximumMessageSize: Int
    /// How many readable bytes are known not to hold a NUL, so that a message arriving in pieces is scanned once.
    private var scannedBytes = 0

    init(maximumMessageSize: Int) {
        self.maximumMessageSize = maximumMessageSize
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let frame = try self.nextFrame(from: &buffer) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(frame))
        return .continue
    }

    mutating func decodeLast(
        context: ChannelHandlerContext,
        buffer: inout ByteBuffer,
        seenEOF: Bool
    ) throws -> DecodingState {
        while let frame = try self.nextFrame(from: &buffer) {
            context.fireChannelRead(Self.wrapInboundOut(frame))
        }
        return .needMoreData
    }

    /// Removes and returns the next complete message, or `nil` if none is complete yet.
    mutating func nextFrame(from buffer: inout ByteBuffer) throws(VarlinkFrameTooLargeError) -> ByteBuffer? {
        let start = min(self.scannedBytes, buffer.readableBytes)
        let terminator = buffer.withUnsafeReadableBytes { bytes in
            bytes[start...].firstIndex(of: 0)
        }
        guard let terminator else {
            self.scannedBytes = buffer.readableBytes
            if buffer.readableBytes > self.maximumMessageSize {
                throw VarlinkFrameTooLargeError(size: buffer.readableBytes, limit: self.maximumMessageSize)
            }
            return nil
        }
        self.scannedBytes = 0
        if terminator > self.maximumMessageSize {
            throw VarlinkFrameTooLargeError(size: terminator, limit: self.maximumMessageSize)
        }
        let frame = buffer.readSlice(length: terminator)
        buffer.moveReaderIndex(forwardBy: 1)
        return frame
    }
}

/// A client sent a message longer than the server accepts.
struct VarlinkFrameTooLargeError: Error, Hashable {
    /// The message's size so far, in bytes.
    var size: Int
    /// The configured maximum.
    var limit: Int
}
