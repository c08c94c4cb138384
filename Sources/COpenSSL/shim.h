#ifndef NAVHOST_COPENSSL_SHIM_H
#define NAVHOST_COPENSSL_SHIM_H
#include <openssl/evp.h>
#endif
