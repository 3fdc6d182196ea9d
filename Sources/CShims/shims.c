// CShims: the bodies of the macro wrappers declared in include/CShims.h.
#define NCURSES_WIDECHAR 1
#define _XOPEN_SOURCE_EXTENDED 1
#include <ncursesw/curses.h>
#include "CShims.h"

LIBSSH2_SESSION *cshims_libssh2_session_init(void) { return libssh2_session_init(); }

int cshims_color_pair(int pair) { return COLOR_PAIR(pair); }

void cshims_screen_size(int *rows, int *cols) {
    int r = 0, c = 0;
    if (stdscr != NULL) { getmaxyx(stdscr, r, c); }
    *rows = r;
    *cols = c;
}
