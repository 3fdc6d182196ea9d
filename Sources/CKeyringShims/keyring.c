// CKeyringShims: the bodies of the system-call wrappers declared in include/CKeyringShims.h.
#define _GNU_SOURCE 1
#include "CKeyringShims.h"
#include <sys/syscall.h>
#include <unistd.h>

long cshims_add_key(const char *type, const char *description, const void *payload, unsigned long length,
                    int keyring) {
    return syscall(SYS_add_key, type, description, payload, length, keyring);
}

long cshims_keyctl(int operation, unsigned long arg2, unsigned long arg3, unsigned long arg4,
                   unsigned long arg5) {
    return syscall(SYS_keyctl, operation, arg2, arg3, arg4, arg5);
}
