import CHeapMemory

/// How the C library's allocator gives memory back to the system.
public enum HeapMemory {
    /// The size from which a block is mapped on its own, and unmapped as soon as it is freed.
    public static let ownMappingThreshold: Int32 = 256 * 1024

    /// Makes every block of ``ownMappingThreshold`` bytes or more a mapping of its own, given back to the system when
    /// it is freed. By default glibc raises that threshold each time such a block is freed (up to 32 MiB), after
    /// which large blocks come from the heap and stay resident once freed: a burst of large messages (clients that
    /// send 1 MiB calls and do not read the replies) left the daemon's resident memory near its peak for good.
    /// Setting the threshold fixes it, and the heap's own trim threshold with it.
    public static func returnLargeBlocks() {
        _ = viper_set_mmap_threshold(Self.ownMappingThreshold)
    }
}
