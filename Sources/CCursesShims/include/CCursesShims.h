// CCursesShims: the ncurses calls ShelfTerminal needs that Swift cannot make itself — macros (getmaxyx, the A_*
// attributes), globals it imports only as unsafe (stdscr, COLORS), and wcwidth, which glibc's feature macros
// hide from Swift. Imported by ShelfTerminal only; nothing else lives here.
#ifndef SSHELF_CCURSESSHIMS_H
#define SSHELF_CCURSESSHIMS_H

#include <wchar.h>

enum { CSHIMS_BOLD = 1, CSHIMS_REVERSE = 2, CSHIMS_UNDERLINE = 4, CSHIMS_DIM = 8 };

// The size of stdscr (0 x 0 before curses started).
void cshims_screen_size(int *rows, int *cols);
// Puts one character cell (a base character plus combining marks, 0-terminated) with a colour pair and flags.
int cshims_put_cell(int row, int col, const wchar_t *text, short pair, unsigned flags);
// Starts curses on stdin/stdout like initscr, but returns 0 instead of exiting when the terminal is unusable
// (unknown TERM).
int cshims_start_screen(void);
// Sets up stdscr for the TUI: raw keys, no echo, keypad on, cursor hidden, a short Escape delay.
void cshims_setup_screen(int escape_delay_ms);
// Reads one key, waiting up to timeout_ms (-1: forever). Returns 0 for none, 1 for a character, 2 for a
// function key (KEY_*), and stores it in *code.
int cshims_read_key(int timeout_ms, unsigned int *code);
int cshims_colors(void);
// Columns a character takes.
int cshims_char_width(wchar_t ch);
void cshims_clear_screen(void);
void cshims_refresh(void);
// Leaves curses if it is on (for the deferred library loaders' fatal exit; see shims.c).
void sshelf_restore_terminal(void);

#endif
