// CShims: prefixed C functions for the libssh2 and ncurses macros Swift cannot import, and fixed-argument
// wrappers for variadic syscalls (the kernel keyring). Nothing else lives here.
#ifndef SSHELF_CSHIMS_H
#define SSHELF_CSHIMS_H

#include <libssh2.h>
#include <wchar.h>

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

// The TUI backend's calls that need stdscr, COLORS or the A_* attribute macros, none of which Swift imports
// (or imports only as unsafe globals under strict concurrency).
enum { CSHIMS_BOLD = 1, CSHIMS_REVERSE = 2, CSHIMS_UNDERLINE = 4, CSHIMS_DIM = 8 };
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
// Columns a character takes (wcwidth is hidden from Swift by glibc's feature macros).
int cshims_char_width(wchar_t ch);
void cshims_clear_screen(void);
void cshims_refresh(void);

#endif
