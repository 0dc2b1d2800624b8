#include <malloc.h>

#include "CHeapMemory.h"

int viper_trim_heap(void) { return malloc_trim(0); }
