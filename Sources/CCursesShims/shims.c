// CCursesShims: the bodies of the ncurses wrappers declared in include/CCursesShims.h.
#define _GNU_SOURCE 1 // for wcwidth
#define NCURSES_WIDECHAR 1
#define _XOPEN_SOURCE_EXTENDED 1
#include <ncursesw/curses.h>
#include <pthread.h>
#include "CCursesShims.h"

// Screen output, and the deferred loaders' fatal exit (below), one at a time: a loader failing on another thread
// (the TUI's login thread) must not leave curses while the TUI's thread is drawing, nor see it draw — and so enter
// curses again — between leaving and the exit.
static pthread_mutex_t screen_output = PTHREAD_MUTEX_INITIALIZER;

void cshims_screen_size(int *rows, int *cols) {
    int r = 0, c = 0;
    if (stdscr != NULL) { getmaxyx(stdscr, r, c); }
    *rows = r;
    *cols = c;
}

int cshims_put_cell(int row, int col, const wchar_t *text, short pair, unsigned flags) {
    attr_t attrs = A_NORMAL;
    if (flags & CSHIMS_BOLD) attrs |= A_BOLD;
    if (flags & CSHIMS_REVERSE) attrs |= A_REVERSE;
    if (flags & CSHIMS_UNDERLINE) attrs |= A_UNDERLINE;
    if (flags & CSHIMS_DIM) attrs |= A_DIM;
    cchar_t cell;
    if (setcchar(&cell, text, attrs, pair, NULL) != OK) return ERR;
    return mvadd_wch(row, col, &cell);
}

void cshims_setup_screen(int escape_delay_ms) {
    raw();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    curs_set(0);
    set_escdelay(escape_delay_ms);
    leaveok(stdscr, TRUE);
}

int cshims_read_key(int timeout_ms, unsigned int *code) {
    // Blocks for good once the terminal was given up (get_wch may refresh the screen itself).
    pthread_mutex_lock(&screen_output);
    pthread_mutex_unlock(&screen_output);
    wint_t ch = 0;
    timeout(timeout_ms);
    int kind = get_wch(&ch);
    *code = (unsigned int)ch;
    if (kind == KEY_CODE_YES) return 2;
    if (kind == OK) return 1;
    return 0;
}

int cshims_colors(void) { return COLORS; }

void cshims_clear_screen(void) { clearok(stdscr, TRUE); erase(); }

void cshims_refresh(void) {
    pthread_mutex_lock(&screen_output);
    refresh();
    pthread_mutex_unlock(&screen_output);
}

int cshims_char_width(wchar_t ch) { return wcwidth(ch); }

int cshims_start_screen(void) {
    SCREEN *screen = newterm(NULL, stdout, stdin);
    if (screen == NULL) return 0;
    set_term(screen);
    return 1;
}

// Called by the libraries' deferred loaders (Sources/C*/deferred.c, a weak reference) just before they end the
// program because a library is missing: leaves curses if the TUI is on screen, so the error they print shows on
// the user's own screen and the terminal works again after the exit.
void sshelf_restore_terminal(void) {
    // Waits for a refresh under way, then keeps the lock: the TUI's thread blocks at its next refresh until the
    // exit, instead of drawing (and entering curses again) over the message.
    pthread_mutex_lock(&screen_output);
    if (stdscr != NULL && !isendwin()) endwin();
}
