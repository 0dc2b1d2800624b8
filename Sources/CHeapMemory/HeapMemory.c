#include <malloc.h>

#include "CHeapMemory.h"

int viper_set_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }
