#ifndef NAVHOST_COPENSSL_SHIM_H
#define NAVHOST_COPENSSL_SHIM_H
// libcrypto's SHA-256, for plugin libraries and session files. The SHA256_Init/Update/Final functions, not EVP:
// OpenSSL 3 marks them deprecated, but they run the same code, while EVP's first digest sets up the provider
// machinery, which keeps about 2 MB of libcrypto resident in the daemon for this one algorithm.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#endif
