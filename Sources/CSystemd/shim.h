#ifndef NAVHOST_CSYSTEMD_SHIM_H
#define NAVHOST_CSYSTEMD_SHIM_H
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

// What the journal's native protocol needs beyond libsystemd and that Swift's Glibc module does not import (glibc
// declares these only under _GNU_SOURCE): memfd_create(2), its flags, and the file seals journald checks on a memfd.
#include <linux/memfd.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline int navhost_memfd_create(const char *name, unsigned int flags) {
    return (int)syscall(SYS_memfd_create, name, flags);
}

// From <linux/fcntl.h>, which cannot be included beside glibc's <fcntl.h>. Kernel ABI: these never change.
enum {
    NAVHOST_F_ADD_SEALS = 1033,
    NAVHOST_F_GET_SEALS = 1034,
    NAVHOST_F_SEAL_SEAL = 0x0001,
    NAVHOST_F_SEAL_SHRINK = 0x0002,
    NAVHOST_F_SEAL_GROW = 0x0004,
    NAVHOST_F_SEAL_WRITE = 0x0008,
};

// From glibc's <bits/socket.h>, declared there only under _GNU_SOURCE: the control message that carries a
// sender's credentials when the receiver set SO_PASSCRED.
enum {
    NAVHOST_SCM_CREDENTIALS = 0x02,
};
#endif
