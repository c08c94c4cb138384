#ifndef NAVHOST_COPENSSL_SHIM_H
#define NAVHOST_COPENSSL_SHIM_H
// libcrypto's message digests (EVP), for the SHA-256 of plugin libraries.
#include <openssl/evp.h>
#endif
