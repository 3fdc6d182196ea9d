// deferred.c: COpenSSL's functions as sshelf calls them, opening libcrypto.so.3 on first use — written by
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

static void open_library(void) { library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL); }

// The library's own function: looked up once; a library that is missing ends the program with what to do.
static void *deferred_symbol(const char *name) {
    pthread_once(&opened, open_library);
    void *function = library ? dlsym(library, name) : NULL;
    if (!function) {
        const char *why = dlerror();
        if (sshelf_restore_terminal) sshelf_restore_terminal();
        dprintf(2, "sshelf: error: cannot load %s from libcrypto.so.3: %s\n", name, why ? why : "not found");
        dprintf(2, "sshelf: hint: install Debian's libssl3 package (sshelf needs it for keys and the vault)\n");
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

int BIO_free(BIO * a0) {
    return deferred(BIO_free)(a0);
}

BIO *BIO_new_mem_buf(const void * a0, int a1) {
    return deferred(BIO_new_mem_buf)(a0, a1);
}

void BN_CTX_free(BN_CTX * a0) {
    deferred(BN_CTX_free)(a0);
}

BN_CTX *BN_CTX_secure_new(void) {
    return deferred(BN_CTX_secure_new)();
}

BIGNUM *BN_bin2bn(const unsigned char * a0, int a1, BIGNUM * a2) {
    return deferred(BN_bin2bn)(a0, a1, a2);
}

int BN_bn2binpad(const BIGNUM * a0, unsigned char * a1, int a2) {
    return deferred(BN_bn2binpad)(a0, a1, a2);
}

void BN_clear_free(BIGNUM * a0) {
    deferred(BN_clear_free)(a0);
}

int BN_div(BIGNUM * a0, BIGNUM * a1, const BIGNUM * a2, const BIGNUM * a3, BN_CTX * a4) {
    return deferred(BN_div)(a0, a1, a2, a3, a4);
}

void BN_free(BIGNUM * a0) {
    deferred(BN_free)(a0);
}

int BN_num_bits(const BIGNUM * a0) {
    return deferred(BN_num_bits)(a0);
}

BIGNUM *BN_secure_new(void) {
    return deferred(BN_secure_new)();
}

int BN_sub_word(BIGNUM * a0, unsigned long a1) {
    return deferred(BN_sub_word)(a0, a1);
}

void ECDSA_SIG_free(ECDSA_SIG * a0) {
    deferred(ECDSA_SIG_free)(a0);
}

void ECDSA_SIG_get0(const ECDSA_SIG * a0, const BIGNUM ** a1, const BIGNUM ** a2) {
    deferred(ECDSA_SIG_get0)(a0, a1, a2);
}

ECDSA_SIG *ECDSA_SIG_new(void) {
    return deferred(ECDSA_SIG_new)();
}

int ECDSA_SIG_set0(ECDSA_SIG * a0, BIGNUM * a1, BIGNUM * a2) {
    return deferred(ECDSA_SIG_set0)(a0, a1, a2);
}

void ERR_clear_error(void) {
    deferred(ERR_clear_error)();
}

void ERR_error_string_n(unsigned long a0, char * a1, size_t a2) {
    deferred(ERR_error_string_n)(a0, a1, a2);
}

unsigned long ERR_get_error(void) {
    return deferred(ERR_get_error)();
}

int EVP_CIPHER_CTX_ctrl(EVP_CIPHER_CTX * a0, int a1, int a2, void * a3) {
    return deferred(EVP_CIPHER_CTX_ctrl)(a0, a1, a2, a3);
}

void EVP_CIPHER_CTX_free(EVP_CIPHER_CTX * a0) {
    deferred(EVP_CIPHER_CTX_free)(a0);
}

EVP_CIPHER_CTX *EVP_CIPHER_CTX_new(void) {
    return deferred(EVP_CIPHER_CTX_new)();
}

int EVP_CIPHER_CTX_set_padding(EVP_CIPHER_CTX * a0, int a1) {
    return deferred(EVP_CIPHER_CTX_set_padding)(a0, a1);
}

int EVP_DecryptFinal_ex(EVP_CIPHER_CTX * a0, unsigned char * a1, int * a2) {
    return deferred(EVP_DecryptFinal_ex)(a0, a1, a2);
}

int EVP_DecryptInit_ex(EVP_CIPHER_CTX * a0, const EVP_CIPHER * a1, ENGINE * a2, const unsigned char * a3, const unsigned char * a4) {
    return deferred(EVP_DecryptInit_ex)(a0, a1, a2, a3, a4);
}

int EVP_DecryptUpdate(EVP_CIPHER_CTX * a0, unsigned char * a1, int * a2, const unsigned char * a3, int a4) {
    return deferred(EVP_DecryptUpdate)(a0, a1, a2, a3, a4);
}

int EVP_DigestFinal_ex(EVP_MD_CTX * a0, unsigned char * a1, unsigned int * a2) {
    return deferred(EVP_DigestFinal_ex)(a0, a1, a2);
}

int EVP_DigestInit_ex(EVP_MD_CTX * a0, const EVP_MD * a1, ENGINE * a2) {
    return deferred(EVP_DigestInit_ex)(a0, a1, a2);
}

int EVP_DigestSign(EVP_MD_CTX * a0, unsigned char * a1, size_t * a2, const unsigned char * a3, size_t a4) {
    return deferred(EVP_DigestSign)(a0, a1, a2, a3, a4);
}

int EVP_DigestSignInit(EVP_MD_CTX * a0, EVP_PKEY_CTX ** a1, const EVP_MD * a2, ENGINE * a3, EVP_PKEY * a4) {
    return deferred(EVP_DigestSignInit)(a0, a1, a2, a3, a4);
}

int EVP_DigestUpdate(EVP_MD_CTX * a0, const void * a1, size_t a2) {
    return deferred(EVP_DigestUpdate)(a0, a1, a2);
}

int EVP_DigestVerify(EVP_MD_CTX * a0, const unsigned char * a1, size_t a2, const unsigned char * a3, size_t a4) {
    return deferred(EVP_DigestVerify)(a0, a1, a2, a3, a4);
}

int EVP_DigestVerifyInit(EVP_MD_CTX * a0, EVP_PKEY_CTX ** a1, const EVP_MD * a2, ENGINE * a3, EVP_PKEY * a4) {
    return deferred(EVP_DigestVerifyInit)(a0, a1, a2, a3, a4);
}

int EVP_EncryptFinal_ex(EVP_CIPHER_CTX * a0, unsigned char * a1, int * a2) {
    return deferred(EVP_EncryptFinal_ex)(a0, a1, a2);
}

int EVP_EncryptInit_ex(EVP_CIPHER_CTX * a0, const EVP_CIPHER * a1, ENGINE * a2, const unsigned char * a3, const unsigned char * a4) {
    return deferred(EVP_EncryptInit_ex)(a0, a1, a2, a3, a4);
}

int EVP_EncryptUpdate(EVP_CIPHER_CTX * a0, unsigned char * a1, int * a2, const unsigned char * a3, int a4) {
    return deferred(EVP_EncryptUpdate)(a0, a1, a2, a3, a4);
}

void EVP_MD_CTX_free(EVP_MD_CTX * a0) {
    deferred(EVP_MD_CTX_free)(a0);
}

EVP_MD_CTX *EVP_MD_CTX_new(void) {
    return deferred(EVP_MD_CTX_new)();
}

void EVP_PKEY_CTX_free(EVP_PKEY_CTX * a0) {
    deferred(EVP_PKEY_CTX_free)(a0);
}

EVP_PKEY_CTX *EVP_PKEY_CTX_new_from_name(OSSL_LIB_CTX * a0, const char * a1, const char * a2) {
    return deferred(EVP_PKEY_CTX_new_from_name)(a0, a1, a2);
}

EVP_PKEY_CTX *EVP_PKEY_CTX_new_from_pkey(OSSL_LIB_CTX * a0, EVP_PKEY * a1, const char * a2) {
    return deferred(EVP_PKEY_CTX_new_from_pkey)(a0, a1, a2);
}

int EVP_PKEY_check(EVP_PKEY_CTX * a0) {
    return deferred(EVP_PKEY_check)(a0);
}

void EVP_PKEY_free(EVP_PKEY * a0) {
    deferred(EVP_PKEY_free)(a0);
}

int EVP_PKEY_fromdata(EVP_PKEY_CTX * a0, EVP_PKEY ** a1, int a2, OSSL_PARAM * a3) {
    return deferred(EVP_PKEY_fromdata)(a0, a1, a2, a3);
}

int EVP_PKEY_fromdata_init(EVP_PKEY_CTX * a0) {
    return deferred(EVP_PKEY_fromdata_init)(a0);
}

int EVP_PKEY_get_base_id(const EVP_PKEY * a0) {
    return deferred(EVP_PKEY_get_base_id)(a0);
}

int EVP_PKEY_get_bits(const EVP_PKEY * a0) {
    return deferred(EVP_PKEY_get_bits)(a0);
}

int EVP_PKEY_get_bn_param(const EVP_PKEY * a0, const char * a1, BIGNUM ** a2) {
    return deferred(EVP_PKEY_get_bn_param)(a0, a1, a2);
}

int EVP_PKEY_get_octet_string_param(const EVP_PKEY * a0, const char * a1, unsigned char * a2, size_t a3, size_t * a4) {
    return deferred(EVP_PKEY_get_octet_string_param)(a0, a1, a2, a3, a4);
}

int EVP_PKEY_get_raw_private_key(const EVP_PKEY * a0, unsigned char * a1, size_t * a2) {
    return deferred(EVP_PKEY_get_raw_private_key)(a0, a1, a2);
}

int EVP_PKEY_get_utf8_string_param(const EVP_PKEY * a0, const char * a1, char * a2, size_t a3, size_t * a4) {
    return deferred(EVP_PKEY_get_utf8_string_param)(a0, a1, a2, a3, a4);
}

const EVP_CIPHER *EVP_aes_128_cbc(void) {
    return deferred(EVP_aes_128_cbc)();
}

const EVP_CIPHER *EVP_aes_128_ctr(void) {
    return deferred(EVP_aes_128_ctr)();
}

const EVP_CIPHER *EVP_aes_128_gcm(void) {
    return deferred(EVP_aes_128_gcm)();
}

const EVP_CIPHER *EVP_aes_192_cbc(void) {
    return deferred(EVP_aes_192_cbc)();
}

const EVP_CIPHER *EVP_aes_192_ctr(void) {
    return deferred(EVP_aes_192_ctr)();
}

const EVP_CIPHER *EVP_aes_256_cbc(void) {
    return deferred(EVP_aes_256_cbc)();
}

const EVP_CIPHER *EVP_aes_256_ctr(void) {
    return deferred(EVP_aes_256_ctr)();
}

const EVP_CIPHER *EVP_aes_256_gcm(void) {
    return deferred(EVP_aes_256_gcm)();
}

const EVP_MD *EVP_sha256(void) {
    return deferred(EVP_sha256)();
}

const EVP_MD *EVP_sha384(void) {
    return deferred(EVP_sha384)();
}

const EVP_MD *EVP_sha512(void) {
    return deferred(EVP_sha512)();
}

OSSL_PARAM OSSL_PARAM_construct_BN(const char * a0, unsigned char * a1, size_t a2) {
    return deferred(OSSL_PARAM_construct_BN)(a0, a1, a2);
}

OSSL_PARAM OSSL_PARAM_construct_end(void) {
    return deferred(OSSL_PARAM_construct_end)();
}

OSSL_PARAM OSSL_PARAM_construct_octet_string(const char * a0, void * a1, size_t a2) {
    return deferred(OSSL_PARAM_construct_octet_string)(a0, a1, a2);
}

OSSL_PARAM OSSL_PARAM_construct_utf8_string(const char * a0, char * a1, size_t a2) {
    return deferred(OSSL_PARAM_construct_utf8_string)(a0, a1, a2);
}

EVP_PKEY *PEM_read_bio_PrivateKey(BIO * a0, EVP_PKEY ** a1, pem_password_cb * a2, void * a3) {
    return deferred(PEM_read_bio_PrivateKey)(a0, a1, a2, a3);
}

ECDSA_SIG *d2i_ECDSA_SIG(ECDSA_SIG ** a0, const unsigned char ** a1, long a2) {
    return deferred(d2i_ECDSA_SIG)(a0, a1, a2);
}

int i2d_ECDSA_SIG(const ECDSA_SIG * a0, unsigned char ** a1) {
    return deferred(i2d_ECDSA_SIG)(a0, a1);
}

#pragma GCC visibility pop
