// One journal line written over a file's existing blocks, then fdatasync, 2,000 times, four ways of opening the file
// each time: stat() then open(O_CREAT) (what FileIO.writeDurably did until session 19), open(O_CREAT) alone, stat()
// then open(), and open() alone. Prints the fdatasync's median and the whole write's median and p99.
//
//   cc -O2 -o fdatasync-after-stat fdatasync-after-stat.c && ./fdatasync-after-stat FILE MODE   (MODE 0–3)
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { writes = 2000, lineLength = 360, lines = 180 };

static double microseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1e6 + now.tv_nsec / 1e3;
}

static int ascending(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int openFile(const char *path, int mode) {
    struct stat info;
    if (mode == 0 || mode == 2) stat(path, &info);
    int flags = O_WRONLY | O_CLOEXEC | (mode <= 1 ? O_CREAT : 0);
    return open(path, flags, 0600);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s FILE MODE (0 stat+O_CREAT, 1 O_CREAT, 2 stat+open, 3 open)\n", argv[0]);
        return 2;
    }
    const char *path = argv[1];
    int mode = atoi(argv[2]);
    static const char *names[] = {"stat, open(O_CREAT)", "open(O_CREAT)", "stat, open", "open"};
    // The file made whole first, as the journal's first line makes it: the lines after it overwrite its zeros.
    static char zeros[lineLength * lines];
    int descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (descriptor < 0 || write(descriptor, zeros, sizeof zeros) != sizeof zeros || fsync(descriptor) != 0) return 1;
    close(descriptor);
    char line[lineLength];
    memset(line, 'x', sizeof line);
    line[lineLength - 1] = '\n';
    static double syncs[writes], totals[writes];
    for (int i = 0; i < writes; i++) {
        double start = microseconds();
        descriptor = openFile(path, mode);
        if (descriptor < 0 || pwrite(descriptor, line, sizeof line, (off_t)(i % lines) * lineLength) < 0) return 1;
        double written = microseconds();
        if (fdatasync(descriptor) != 0) return 1;
        syncs[i] = microseconds() - written;
        close(descriptor);
        totals[i] = microseconds() - start;
    }
    qsort(syncs, writes, sizeof(double), ascending);
    qsort(totals, writes, sizeof(double), ascending);
    printf("%-20s fdatasync p50 %6.1f us; whole write p50 %6.1f us, p99 %6.1f us\n", names[mode], syncs[writes / 2],
           totals[writes / 2], totals[writes * 99 / 100]);
    return 0;
}
