#ifndef C_HEAP_MEMORY_H
#define C_HEAP_MEMORY_H

/// Sets glibc's M_MMAP_THRESHOLD (see mallopt(3)): blocks of `bytes` or more are mapped on their own and unmapped
/// when freed. Returns 1 on success, 0 on error.
int viper_set_mmap_threshold(int bytes);

#endif
