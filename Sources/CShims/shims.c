// CShims: the bodies of the macro wrappers declared in include/CShims.h.
#define NCURSES_WIDECHAR 1
#define _XOPEN_SOURCE_EXTENDED 1
#include <ncursesw/curses.h>
#include "CShims.h"
#include <sys/syscall.h>
#include <unistd.h>

LIBSSH2_SESSION *cshims_libssh2_session_init(void) { return libssh2_session_init(); }

int cshims_color_pair(int pair) { return COLOR_PAIR(pair); }

void cshims_screen_size(int *rows, int *cols) {
    int r = 0, c = 0;
    if (stdscr != NULL) { getmaxyx(stdscr, r, c); }
    *rows = r;
    *cols = c;
}

long cshims_add_key(const char *type, const char *description, const void *payload, unsigned long length,
                    int keyring) {
    return syscall(SYS_add_key, type, description, payload, length, keyring);
}

long cshims_keyctl(int operation, unsigned long arg2, unsigned long arg3, unsigned long arg4,
                   unsigned long arg5) {
    return syscall(SYS_keyctl, operation, arg2, arg3, arg4, arg5);
}
