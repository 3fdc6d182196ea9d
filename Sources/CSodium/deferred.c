// deferred.c: CSodium's functions as sshelf calls them, opening libsodium.so.23 on first use — written by
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

static void open_library(void) { library = dlopen("libsodium.so.23", RTLD_NOW | RTLD_LOCAL); }

// The library's own function: looked up once; a library that is missing ends the program with what to do.
static void *deferred_symbol(const char *name) {
    pthread_once(&opened, open_library);
    void *function = library ? dlsym(library, name) : NULL;
    if (!function) {
        const char *why = dlerror();
        if (sshelf_restore_terminal) sshelf_restore_terminal();
        dprintf(2, "sshelf: error: cannot load %s from libsodium.so.23: %s\n", name, why ? why : "not found");
        dprintf(2, "sshelf: hint: install Debian's libsodium23 package (sshelf needs it for the vault and sync)\n");
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

int crypto_aead_aes256gcm_is_available(void) {
    return deferred(crypto_aead_aes256gcm_is_available)();
}

int crypto_aead_xchacha20poly1305_ietf_decrypt(unsigned char * a0, unsigned long long * a1, unsigned char * a2, const unsigned char * a3, unsigned long long a4, const unsigned char * a5, unsigned long long a6, const unsigned char * a7, const unsigned char * a8) {
    return deferred(crypto_aead_xchacha20poly1305_ietf_decrypt)(a0, a1, a2, a3, a4, a5, a6, a7, a8);
}

int crypto_aead_xchacha20poly1305_ietf_encrypt(unsigned char * a0, unsigned long long * a1, const unsigned char * a2, unsigned long long a3, const unsigned char * a4, unsigned long long a5, const unsigned char * a6, const unsigned char * a7, const unsigned char * a8) {
    return deferred(crypto_aead_xchacha20poly1305_ietf_encrypt)(a0, a1, a2, a3, a4, a5, a6, a7, a8);
}

size_t crypto_box_publickeybytes(void) {
    return deferred(crypto_box_publickeybytes)();
}

int crypto_box_seal(unsigned char * a0, const unsigned char * a1, unsigned long long a2, const unsigned char * a3) {
    return deferred(crypto_box_seal)(a0, a1, a2, a3);
}

int crypto_box_seal_open(unsigned char * a0, const unsigned char * a1, unsigned long long a2, const unsigned char * a3, const unsigned char * a4) {
    return deferred(crypto_box_seal_open)(a0, a1, a2, a3, a4);
}

size_t crypto_box_sealbytes(void) {
    return deferred(crypto_box_sealbytes)();
}

int crypto_generichash(unsigned char * a0, size_t a1, const unsigned char * a2, unsigned long long a3, const unsigned char * a4, size_t a5) {
    return deferred(crypto_generichash)(a0, a1, a2, a3, a4, a5);
}

int crypto_hash_sha256_final(crypto_hash_sha256_state * a0, unsigned char * a1) {
    return deferred(crypto_hash_sha256_final)(a0, a1);
}

int crypto_hash_sha256_init(crypto_hash_sha256_state * a0) {
    return deferred(crypto_hash_sha256_init)(a0);
}

int crypto_hash_sha256_update(crypto_hash_sha256_state * a0, const unsigned char * a1, unsigned long long a2) {
    return deferred(crypto_hash_sha256_update)(a0, a1, a2);
}

int crypto_hash_sha512(unsigned char * a0, const unsigned char * a1, unsigned long long a2) {
    return deferred(crypto_hash_sha512)(a0, a1, a2);
}

size_t crypto_kdf_contextbytes(void) {
    return deferred(crypto_kdf_contextbytes)();
}

int crypto_kdf_derive_from_key(unsigned char * a0, size_t a1, uint64_t a2, const char * a3, const unsigned char * a4) {
    return deferred(crypto_kdf_derive_from_key)(a0, a1, a2, a3, a4);
}

size_t crypto_kdf_keybytes(void) {
    return deferred(crypto_kdf_keybytes)();
}

int crypto_onetimeauth_poly1305_verify(const unsigned char * a0, const unsigned char * a1, unsigned long long a2, const unsigned char * a3) {
    return deferred(crypto_onetimeauth_poly1305_verify)(a0, a1, a2, a3);
}

int crypto_pwhash(unsigned char *const a0, unsigned long long a1, const char *const a2, unsigned long long a3, const unsigned char *const a4, unsigned long long a5, size_t a6, int a7) {
    return deferred(crypto_pwhash)(a0, a1, a2, a3, a4, a5, a6, a7);
}

size_t crypto_scalarmult_curve25519_bytes(void) {
    return deferred(crypto_scalarmult_curve25519_bytes)();
}

int crypto_secretstream_xchacha20poly1305_init_pull(crypto_secretstream_xchacha20poly1305_state * a0, const unsigned char * a1, const unsigned char * a2) {
    return deferred(crypto_secretstream_xchacha20poly1305_init_pull)(a0, a1, a2);
}

int crypto_secretstream_xchacha20poly1305_init_push(crypto_secretstream_xchacha20poly1305_state * a0, unsigned char * a1, const unsigned char * a2) {
    return deferred(crypto_secretstream_xchacha20poly1305_init_push)(a0, a1, a2);
}

int crypto_secretstream_xchacha20poly1305_pull(crypto_secretstream_xchacha20poly1305_state * a0, unsigned char * a1, unsigned long long * a2, unsigned char * a3, const unsigned char * a4, unsigned long long a5, const unsigned char * a6, unsigned long long a7) {
    return deferred(crypto_secretstream_xchacha20poly1305_pull)(a0, a1, a2, a3, a4, a5, a6, a7);
}

int crypto_secretstream_xchacha20poly1305_push(crypto_secretstream_xchacha20poly1305_state * a0, unsigned char * a1, unsigned long long * a2, const unsigned char * a3, unsigned long long a4, const unsigned char * a5, unsigned long long a6, unsigned char a7) {
    return deferred(crypto_secretstream_xchacha20poly1305_push)(a0, a1, a2, a3, a4, a5, a6, a7);
}

size_t crypto_sign_bytes(void) {
    return deferred(crypto_sign_bytes)();
}

int crypto_sign_detached(unsigned char * a0, unsigned long long * a1, const unsigned char * a2, unsigned long long a3, const unsigned char * a4) {
    return deferred(crypto_sign_detached)(a0, a1, a2, a3, a4);
}

int crypto_sign_ed25519_pk_to_curve25519(unsigned char * a0, const unsigned char * a1) {
    return deferred(crypto_sign_ed25519_pk_to_curve25519)(a0, a1);
}

int crypto_sign_ed25519_sk_to_curve25519(unsigned char * a0, const unsigned char * a1) {
    return deferred(crypto_sign_ed25519_sk_to_curve25519)(a0, a1);
}

size_t crypto_sign_publickeybytes(void) {
    return deferred(crypto_sign_publickeybytes)();
}

size_t crypto_sign_secretkeybytes(void) {
    return deferred(crypto_sign_secretkeybytes)();
}

int crypto_sign_seed_keypair(unsigned char * a0, unsigned char * a1, const unsigned char * a2) {
    return deferred(crypto_sign_seed_keypair)(a0, a1, a2);
}

size_t crypto_sign_seedbytes(void) {
    return deferred(crypto_sign_seedbytes)();
}

int crypto_sign_verify_detached(const unsigned char * a0, const unsigned char * a1, unsigned long long a2, const unsigned char * a3) {
    return deferred(crypto_sign_verify_detached)(a0, a1, a2, a3);
}

int crypto_stream_chacha20(unsigned char * a0, unsigned long long a1, const unsigned char * a2, const unsigned char * a3) {
    return deferred(crypto_stream_chacha20)(a0, a1, a2, a3);
}

int crypto_stream_chacha20_xor_ic(unsigned char * a0, const unsigned char * a1, unsigned long long a2, const unsigned char * a3, uint64_t a4, const unsigned char * a5) {
    return deferred(crypto_stream_chacha20_xor_ic)(a0, a1, a2, a3, a4, a5);
}

void randombytes_buf(void *const a0, const size_t a1) {
    deferred(randombytes_buf)(a0, a1);
}

int sodium_base642bin(unsigned char *const a0, const size_t a1, const char *const a2, const size_t a3, const char *const a4, size_t *const a5, const char **const a6, const int a7) {
    return deferred(sodium_base642bin)(a0, a1, a2, a3, a4, a5, a6, a7);
}

size_t sodium_base64_encoded_len(const size_t a0, const int a1) {
    return deferred(sodium_base64_encoded_len)(a0, a1);
}

char *sodium_bin2base64(char *const a0, const size_t a1, const unsigned char *const a2, const size_t a3, const int a4) {
    return deferred(sodium_bin2base64)(a0, a1, a2, a3, a4);
}

int sodium_init(void) {
    return deferred(sodium_init)();
}

int sodium_memcmp(const void *const a0, const void *const a1, size_t a2) {
    return deferred(sodium_memcmp)(a0, a1, a2);
}

void sodium_memzero(void *const a0, const size_t a1) {
    deferred(sodium_memzero)(a0, a1);
}

const char *sodium_version_string(void) {
    return deferred(sodium_version_string)();
}

#pragma GCC visibility pop
