#ifndef NAVHOST_CGCRYPT_SHIM_H
#define NAVHOST_CGCRYPT_SHIM_H
// libgcrypt's SHA-256, for plugin libraries and session files. libgcrypt, not libcrypto: libsystemd already maps
// libgcrypt into the daemon, while libcrypto's relocations and tables alone kept about 1.5 MB of it resident.
#include <gcrypt.h>

/// Initialises libgcrypt once, as its manual asks of a program (version check, no secure memory, initialisation
/// finished), unless someone in the process did already. Returns 0 if the library is older than the one built
/// against. `gcry_control` is variadic, which Swift cannot call: hence this function.
static inline int navhost_gcrypt_initialize(void) {
    if (gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P)) {
        return 1;
    }
    if (!gcry_check_version(GCRYPT_VERSION)) {
        return 0;
    }
    gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
    gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
    return 1;
}
#endif
