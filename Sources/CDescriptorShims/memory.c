// CDescriptorShims: glibc malloc's tuning for a long-running process (the user service, ProcessMemory): malloc.h is
// not part of Swift's Glibc module.
#include "CDescriptorShims.h"
#include <malloc.h>

int cshims_malloc_arena_max(int arenas) { return mallopt(M_ARENA_MAX, arenas); }

int cshims_malloc_trim(void) { return malloc_trim(0); }
