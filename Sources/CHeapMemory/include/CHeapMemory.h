#ifndef C_HEAP_MEMORY_H
#define C_HEAP_MEMORY_H

#include <stddef.h>

/// Gives the free memory of every malloc arena back to the system (glibc's malloc_trim(0), see malloc_trim(3)):
/// the top of each heap, and the whole pages of free chunks inside it. Returns 1 when some memory was released.
int viper_trim_heap(void);

/// The bytes free in malloc's arenas, kept for reuse (mallinfo2's fordblks, see mallinfo(3)).
size_t viper_heap_free_bytes(void);

#endif
