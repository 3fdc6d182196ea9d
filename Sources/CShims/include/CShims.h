// CShims: prefixed C functions for the libssh2 and ncurses macros Swift cannot import. Nothing else lives here.
#ifndef SSHELF_CSHIMS_H
#define SSHELF_CSHIMS_H

#include <libssh2.h>

// libssh2_session_init is a macro over libssh2_session_init_ex with NULL allocators.
LIBSSH2_SESSION *cshims_libssh2_session_init(void);

// ncurses: COLOR_PAIR and getmaxyx are macros; wrapped so the terminal backend can call them.
int cshims_color_pair(int pair);
void cshims_screen_size(int *rows, int *cols);

#endif
