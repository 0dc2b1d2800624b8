#include <malloc.h>

#include "CHeapMemory.h"

int viper_trim_heap(void) { return malloc_trim(0); }

size_t viper_heap_free_bytes(void) { return mallinfo2().fordblks; }
