import CHeapMemory

/// Giving the C library's free memory back to the system.
public enum HeapMemory {
    /// The bytes free in malloc's arenas, kept for reuse (`mallinfo2().fordblks`).
    public static var freeBytes: Int { Int(viper_heap_free_bytes()) }

    /// Gives the free memory of every malloc arena back to the system (`malloc_trim(0)`): the top of each heap, and
    /// the whole pages of the free chunks inside it. glibc gives back only the top of a heap by itself, and maps a
    /// block of its own only below a threshold it raises as large blocks are freed: after a burst of large messages
    /// (clients that send 1 MiB calls and do not read the replies) the daemon's resident memory stayed near its peak
    /// for good. Returns whether some memory was given back.
    @discardableResult
    public static func trim() -> Bool {
        viper_trim_heap() == 1
    }
}
