// CKeyringShims: the Linux kernel keyring for ShelfVault. glibc's syscall() is variadic, which Swift cannot
// call; these fixed-argument wrappers make the add_key(2) and keyctl(2) system calls directly (no libkeyutils
// needed). They return -1 and set errno. Imported by ShelfVault only.
#ifndef SSHELF_CKEYRINGSHIMS_H
#define SSHELF_CKEYRINGSHIMS_H

long cshims_add_key(const char *type, const char *description, const void *payload, unsigned long length,
                    int keyring);
long cshims_keyctl(int operation, unsigned long arg2, unsigned long arg3, unsigned long arg4,
                   unsigned long arg5);

#endif
