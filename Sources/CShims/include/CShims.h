// CShims: prefixed C functions for the libssh2 and ncurses macros Swift cannot import, and fixed-argument
// wrappers for variadic syscalls (the kernel keyring). Nothing else lives here.
#ifndef SSHELF_CSHIMS_H
#define SSHELF_CSHIMS_H

#include <libssh2.h>

// libssh2_session_init is a macro over libssh2_session_init_ex with NULL allocators.
LIBSSH2_SESSION *cshims_libssh2_session_init(void);

// ncurses: COLOR_PAIR and getmaxyx are macros; wrapped so the terminal backend can call them.
int cshims_color_pair(int pair);
void cshims_screen_size(int *rows, int *cols);

// Linux kernel keyring: glibc's syscall() is variadic, which Swift cannot call; these fixed-argument
// wrappers issue add_key(2) and keyctl(2) directly (no libkeyutils needed). They return -1 and set errno.
long cshims_add_key(const char *type, const char *description, const void *payload, unsigned long length,
                    int keyring);
long cshims_keyctl(int operation, unsigned long arg2, unsigned long arg3, unsigned long arg4,
                   unsigned long arg5);

#endif
