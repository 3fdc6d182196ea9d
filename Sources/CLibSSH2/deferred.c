// deferred.c: CLibSSH2's functions as sshelf calls them, opening libssh2.so.1 on first use — written by
// scripts/deferred-libraries (edit that, not this). Not loading it at start saves every command that does
// not need it the dynamic loader's work and the memory (docs/PERFORMANCE.md, "Start-up").
#define _GNU_SOURCE  // dladdr
#include "shim.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

// Defined by the TUI's curses shim (a weak reference: absent from a program without it): leaves curses, so
// the message below lands on the user's own screen and the terminal is usable after the exit.
extern void sshelf_restore_terminal(void) __attribute__((weak));

static void *library;
static pthread_once_t opened = PTHREAD_ONCE_INIT;

// ../lib/sshelf/libssh2.so.1 beside the binary's directory, when installed (make install-libssh2-1.11); else the system's.
static void open_library(void) {
    char path[4096];
    ssize_t length = readlink("/proc/self/exe", path, sizeof path - 64);
    if (length > 0) path[length] = 0;
    char *slash = length > 0 ? strrchr(path, '/') : NULL;
    if (slash) {
        strcpy(slash + 1, "../lib/sshelf/libssh2.so.1");
        if (access(path, R_OK) == 0) library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
    if (!library) library = dlopen("libssh2.so.1", RTLD_NOW | RTLD_LOCAL);
}

// The library's own function: looked up once; a library that is missing ends the program with what to do.
static void *deferred_symbol(const char *name) {
    pthread_once(&opened, open_library);
    void *function = library ? dlsym(library, name) : NULL;
    if (!function) {
        const char *why = dlerror();
        if (sshelf_restore_terminal) sshelf_restore_terminal();
        dprintf(2, "sshelf: error: cannot load %s from libssh2.so.1: %s\n", name, why ? why : "not found");
        dprintf(2, "sshelf: hint: install Debian's libssh2-1 package (sshelf needs it to connect)\n");
        _exit(1);
    }
    return function;
}

// The function pointer `name` resolves to, kept after the first call (atomically: any thread may call first).
#define deferred(name) \
    ({ \
        static __typeof__(&name) resolved_; \
        __typeof__(&name) f_ = __atomic_load_n(&resolved_, __ATOMIC_ACQUIRE); \
        if (!f_) { \
            f_ = (__typeof__(&name))deferred_symbol(#name); \
            __atomic_store_n(&resolved_, f_, __ATOMIC_RELEASE); \
        } \
        f_; \
    })

// Hidden: not exported, so the library (and what it loads) binds to its own functions, never to these.
#pragma GCC visibility push(hidden)

// A function the library may lack (one of a newer version): its address, or NULL; never ends the program.
void *sshelf_libssh2_optional(const char *name) {
    pthread_once(&opened, open_library);
    return library ? dlsym(library, name) : NULL;
}

// The file the library was opened from, or NULL when it could not be opened.
const char *sshelf_libssh2_path(void) {
    pthread_once(&opened, open_library);
    Dl_info info;
    void *function = library ? dlsym(library, "libssh2_agent_connect") : NULL;
    return function && dladdr(function, &info) ? info.dli_fname : NULL;
}

int libssh2_agent_connect(LIBSSH2_AGENT * a0) {
    return deferred(libssh2_agent_connect)(a0);
}

int libssh2_agent_disconnect(LIBSSH2_AGENT * a0) {
    return deferred(libssh2_agent_disconnect)(a0);
}

void libssh2_agent_free(LIBSSH2_AGENT * a0) {
    deferred(libssh2_agent_free)(a0);
}

int libssh2_agent_get_identity(LIBSSH2_AGENT * a0, struct libssh2_agent_publickey ** a1, struct libssh2_agent_publickey * a2) {
    return deferred(libssh2_agent_get_identity)(a0, a1, a2);
}

LIBSSH2_AGENT *libssh2_agent_init(LIBSSH2_SESSION * a0) {
    return deferred(libssh2_agent_init)(a0);
}

int libssh2_agent_list_identities(LIBSSH2_AGENT * a0) {
    return deferred(libssh2_agent_list_identities)(a0);
}

void libssh2_agent_set_identity_path(LIBSSH2_AGENT * a0, const char * a1) {
    deferred(libssh2_agent_set_identity_path)(a0, a1);
}

int libssh2_agent_userauth(LIBSSH2_AGENT * a0, const char * a1, struct libssh2_agent_publickey * a2) {
    return deferred(libssh2_agent_userauth)(a0, a1, a2);
}

int libssh2_channel_close(LIBSSH2_CHANNEL * a0) {
    return deferred(libssh2_channel_close)(a0);
}

LIBSSH2_CHANNEL *libssh2_channel_direct_tcpip_ex(LIBSSH2_SESSION * a0, const char * a1, int a2, const char * a3, int a4) {
    return deferred(libssh2_channel_direct_tcpip_ex)(a0, a1, a2, a3, a4);
}

int libssh2_channel_eof(LIBSSH2_CHANNEL * a0) {
    return deferred(libssh2_channel_eof)(a0);
}

LIBSSH2_CHANNEL *libssh2_channel_forward_accept(LIBSSH2_LISTENER * a0) {
    return deferred(libssh2_channel_forward_accept)(a0);
}

int libssh2_channel_forward_cancel(LIBSSH2_LISTENER * a0) {
    return deferred(libssh2_channel_forward_cancel)(a0);
}

LIBSSH2_LISTENER *libssh2_channel_forward_listen_ex(LIBSSH2_SESSION * a0, const char * a1, int a2, int * a3, int a4) {
    return deferred(libssh2_channel_forward_listen_ex)(a0, a1, a2, a3, a4);
}

int libssh2_channel_free(LIBSSH2_CHANNEL * a0) {
    return deferred(libssh2_channel_free)(a0);
}

int libssh2_channel_get_exit_signal(LIBSSH2_CHANNEL * a0, char ** a1, size_t * a2, char ** a3, size_t * a4, char ** a5, size_t * a6) {
    return deferred(libssh2_channel_get_exit_signal)(a0, a1, a2, a3, a4, a5, a6);
}

int libssh2_channel_get_exit_status(LIBSSH2_CHANNEL * a0) {
    return deferred(libssh2_channel_get_exit_status)(a0);
}

LIBSSH2_CHANNEL *libssh2_channel_open_ex(LIBSSH2_SESSION * a0, const char * a1, unsigned int a2, unsigned int a3, unsigned int a4, const char * a5, unsigned int a6) {
    return deferred(libssh2_channel_open_ex)(a0, a1, a2, a3, a4, a5, a6);
}

int libssh2_channel_process_startup(LIBSSH2_CHANNEL * a0, const char * a1, unsigned int a2, const char * a3, unsigned int a4) {
    return deferred(libssh2_channel_process_startup)(a0, a1, a2, a3, a4);
}

ssize_t libssh2_channel_read_ex(LIBSSH2_CHANNEL * a0, int a1, char * a2, size_t a3) {
    return deferred(libssh2_channel_read_ex)(a0, a1, a2, a3);
}

int libssh2_channel_request_pty_ex(LIBSSH2_CHANNEL * a0, const char * a1, unsigned int a2, const char * a3, unsigned int a4, int a5, int a6, int a7, int a8) {
    return deferred(libssh2_channel_request_pty_ex)(a0, a1, a2, a3, a4, a5, a6, a7, a8);
}

int libssh2_channel_request_pty_size_ex(LIBSSH2_CHANNEL * a0, int a1, int a2, int a3, int a4) {
    return deferred(libssh2_channel_request_pty_size_ex)(a0, a1, a2, a3, a4);
}

int libssh2_channel_send_eof(LIBSSH2_CHANNEL * a0) {
    return deferred(libssh2_channel_send_eof)(a0);
}

int libssh2_channel_setenv_ex(LIBSSH2_CHANNEL * a0, const char * a1, unsigned int a2, const char * a3, unsigned int a4) {
    return deferred(libssh2_channel_setenv_ex)(a0, a1, a2, a3, a4);
}

int libssh2_channel_wait_closed(LIBSSH2_CHANNEL * a0) {
    return deferred(libssh2_channel_wait_closed)(a0);
}

unsigned long libssh2_channel_window_read_ex(LIBSSH2_CHANNEL * a0, unsigned long * a1, unsigned long * a2) {
    return deferred(libssh2_channel_window_read_ex)(a0, a1, a2);
}

unsigned long libssh2_channel_window_write_ex(LIBSSH2_CHANNEL * a0, unsigned long * a1) {
    return deferred(libssh2_channel_window_write_ex)(a0, a1);
}

ssize_t libssh2_channel_write_ex(LIBSSH2_CHANNEL * a0, int a1, const char * a2, size_t a3) {
    return deferred(libssh2_channel_write_ex)(a0, a1, a2, a3);
}

void libssh2_free(LIBSSH2_SESSION * a0, void * a1) {
    deferred(libssh2_free)(a0, a1);
}

int libssh2_init(int a0) {
    return deferred(libssh2_init)(a0);
}

void libssh2_keepalive_config(LIBSSH2_SESSION * a0, int a1, unsigned int a2) {
    deferred(libssh2_keepalive_config)(a0, a1, a2);
}

int libssh2_keepalive_send(LIBSSH2_SESSION * a0, int * a1) {
    return deferred(libssh2_keepalive_send)(a0, a1);
}

int libssh2_poll_channel_read(LIBSSH2_CHANNEL * a0, int a1) {
    return deferred(libssh2_poll_channel_read)(a0, a1);
}

int libssh2_session_block_directions(LIBSSH2_SESSION * a0) {
    return deferred(libssh2_session_block_directions)(a0);
}

void *libssh2_session_callback_set(LIBSSH2_SESSION * a0, int a1, void * a2) {
    return deferred(libssh2_session_callback_set)(a0, a1, a2);
}

int libssh2_session_disconnect_ex(LIBSSH2_SESSION * a0, int a1, const char * a2, const char * a3) {
    return deferred(libssh2_session_disconnect_ex)(a0, a1, a2, a3);
}

int libssh2_session_flag(LIBSSH2_SESSION * a0, int a1, int a2) {
    return deferred(libssh2_session_flag)(a0, a1, a2);
}

int libssh2_session_free(LIBSSH2_SESSION * a0) {
    return deferred(libssh2_session_free)(a0);
}

long libssh2_session_get_timeout(LIBSSH2_SESSION * a0) {
    return deferred(libssh2_session_get_timeout)(a0);
}

int libssh2_session_handshake(LIBSSH2_SESSION * a0, libssh2_socket_t a1) {
    return deferred(libssh2_session_handshake)(a0, a1);
}

const char *libssh2_session_hostkey(LIBSSH2_SESSION * a0, size_t * a1, int * a2) {
    return deferred(libssh2_session_hostkey)(a0, a1, a2);
}

LIBSSH2_SESSION *libssh2_session_init_ex(void *(*a0)(size_t, void **), void (*a1)(void *, void **), void *(*a2)(void *, size_t, void **), void * a3) {
    return deferred(libssh2_session_init_ex)(a0, a1, a2, a3);
}

int libssh2_session_last_errno(LIBSSH2_SESSION * a0) {
    return deferred(libssh2_session_last_errno)(a0);
}

int libssh2_session_last_error(LIBSSH2_SESSION * a0, char ** a1, int * a2, int a3) {
    return deferred(libssh2_session_last_error)(a0, a1, a2, a3);
}

int libssh2_session_method_pref(LIBSSH2_SESSION * a0, int a1, const char * a2) {
    return deferred(libssh2_session_method_pref)(a0, a1, a2);
}

const char *libssh2_session_methods(LIBSSH2_SESSION * a0, int a1) {
    return deferred(libssh2_session_methods)(a0, a1);
}

void libssh2_session_set_blocking(LIBSSH2_SESSION * a0, int a1) {
    deferred(libssh2_session_set_blocking)(a0, a1);
}

void libssh2_session_set_timeout(LIBSSH2_SESSION * a0, long a1) {
    deferred(libssh2_session_set_timeout)(a0, a1);
}

int libssh2_session_supported_algs(LIBSSH2_SESSION * a0, int a1, const char *** a2) {
    return deferred(libssh2_session_supported_algs)(a0, a1, a2);
}

int libssh2_sftp_close_handle(LIBSSH2_SFTP_HANDLE * a0) {
    return deferred(libssh2_sftp_close_handle)(a0);
}

int libssh2_sftp_fstat_ex(LIBSSH2_SFTP_HANDLE * a0, LIBSSH2_SFTP_ATTRIBUTES * a1, int a2) {
    return deferred(libssh2_sftp_fstat_ex)(a0, a1, a2);
}

LIBSSH2_CHANNEL *libssh2_sftp_get_channel(LIBSSH2_SFTP * a0) {
    return deferred(libssh2_sftp_get_channel)(a0);
}

LIBSSH2_SFTP *libssh2_sftp_init(LIBSSH2_SESSION * a0) {
    return deferred(libssh2_sftp_init)(a0);
}

unsigned long libssh2_sftp_last_error(LIBSSH2_SFTP * a0) {
    return deferred(libssh2_sftp_last_error)(a0);
}

int libssh2_sftp_mkdir_ex(LIBSSH2_SFTP * a0, const char * a1, unsigned int a2, long a3) {
    return deferred(libssh2_sftp_mkdir_ex)(a0, a1, a2, a3);
}

LIBSSH2_SFTP_HANDLE *libssh2_sftp_open_ex(LIBSSH2_SFTP * a0, const char * a1, unsigned int a2, unsigned long a3, long a4, int a5) {
    return deferred(libssh2_sftp_open_ex)(a0, a1, a2, a3, a4, a5);
}

ssize_t libssh2_sftp_read(LIBSSH2_SFTP_HANDLE * a0, char * a1, size_t a2) {
    return deferred(libssh2_sftp_read)(a0, a1, a2);
}

int libssh2_sftp_readdir_ex(LIBSSH2_SFTP_HANDLE * a0, char * a1, size_t a2, char * a3, size_t a4, LIBSSH2_SFTP_ATTRIBUTES * a5) {
    return deferred(libssh2_sftp_readdir_ex)(a0, a1, a2, a3, a4, a5);
}

int libssh2_sftp_rename_ex(LIBSSH2_SFTP * a0, const char * a1, unsigned int a2, const char * a3, unsigned int a4, long a5) {
    return deferred(libssh2_sftp_rename_ex)(a0, a1, a2, a3, a4, a5);
}

int libssh2_sftp_shutdown(LIBSSH2_SFTP * a0) {
    return deferred(libssh2_sftp_shutdown)(a0);
}

int libssh2_sftp_stat_ex(LIBSSH2_SFTP * a0, const char * a1, unsigned int a2, int a3, LIBSSH2_SFTP_ATTRIBUTES * a4) {
    return deferred(libssh2_sftp_stat_ex)(a0, a1, a2, a3, a4);
}

int libssh2_sftp_symlink_ex(LIBSSH2_SFTP * a0, const char * a1, unsigned int a2, char * a3, unsigned int a4, int a5) {
    return deferred(libssh2_sftp_symlink_ex)(a0, a1, a2, a3, a4, a5);
}

int libssh2_sftp_rmdir_ex(LIBSSH2_SFTP * a0, const char * a1, unsigned int a2) {
    return deferred(libssh2_sftp_rmdir_ex)(a0, a1, a2);
}

int libssh2_sftp_unlink_ex(LIBSSH2_SFTP * a0, const char * a1, unsigned int a2) {
    return deferred(libssh2_sftp_unlink_ex)(a0, a1, a2);
}

ssize_t libssh2_sftp_write(LIBSSH2_SFTP_HANDLE * a0, const char * a1, size_t a2) {
    return deferred(libssh2_sftp_write)(a0, a1, a2);
}

int libssh2_userauth_authenticated(LIBSSH2_SESSION * a0) {
    return deferred(libssh2_userauth_authenticated)(a0);
}

int libssh2_userauth_keyboard_interactive_ex(LIBSSH2_SESSION * a0, const char * a1, unsigned int a2, void (*a3)(const char *, int, const char *, int, int, const LIBSSH2_USERAUTH_KBDINT_PROMPT *, LIBSSH2_USERAUTH_KBDINT_RESPONSE *, void **)) {
    return deferred(libssh2_userauth_keyboard_interactive_ex)(a0, a1, a2, a3);
}

char *libssh2_userauth_list(LIBSSH2_SESSION * a0, const char * a1, unsigned int a2) {
    return deferred(libssh2_userauth_list)(a0, a1, a2);
}

int libssh2_userauth_password_ex(LIBSSH2_SESSION * a0, const char * a1, unsigned int a2, const char * a3, unsigned int a4, void (*a5)(LIBSSH2_SESSION *, char **, int *, void **)) {
    return deferred(libssh2_userauth_password_ex)(a0, a1, a2, a3, a4, a5);
}

int libssh2_userauth_publickey(LIBSSH2_SESSION * a0, const char * a1, const unsigned char * a2, size_t a3, int (*a4)(LIBSSH2_SESSION *, unsigned char **, size_t *, const unsigned char *, size_t, void **), void ** a5) {
    return deferred(libssh2_userauth_publickey)(a0, a1, a2, a3, a4, a5);
}

int libssh2_userauth_publickey_frommemory(LIBSSH2_SESSION * a0, const char * a1, size_t a2, const char * a3, size_t a4, const char * a5, size_t a6, const char * a7) {
    return deferred(libssh2_userauth_publickey_frommemory)(a0, a1, a2, a3, a4, a5, a6, a7);
}

const char *libssh2_version(int a0) {
    return deferred(libssh2_version)(a0);
}

#pragma GCC visibility pop
