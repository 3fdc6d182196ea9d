// CDescriptorShims: the bodies of the wrappers declared in include/CDescriptorShims.h.
#define _GNU_SOURCE 1
#include "CDescriptorShims.h"
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

int cshims_pipe_cloexec(int fds[2], int nonblocking) {
    return pipe2(fds, O_CLOEXEC | (nonblocking ? O_NONBLOCK : 0));
}

int cshims_accept_cloexec(int listener, int nonblocking) {
    return accept4(listener, NULL, NULL, SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0));
}

int cshims_o_path(void) { return O_PATH; }

int cshims_open_pty(char *name, unsigned long length) {
    int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0) return -1;
    if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, name, length) != 0) {
        close(master);
        return -1;
    }
    return master;
}

int cshims_cloexec_from(int lowest) {
    if (close_range((unsigned)lowest, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return 0;
    // A kernel before 5.11 has no CLOSE_RANGE_CLOEXEC: every open descriptor, one by one.
    DIR *listing = opendir("/proc/self/fd");
    if (listing == NULL) return -1;
    int own = dirfd(listing);
    struct dirent *entry;
    while ((entry = readdir(listing)) != NULL) {
        int fd = atoi(entry->d_name);
        if (fd < lowest || fd == own) continue;
        int flags = fcntl(fd, F_GETFD);
        if (flags >= 0) fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
    }
    closedir(listing);
    return 0;
}

int cshims_pidfd_open(int pid) {
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
    // Close-on-exec by the kernel: a pidfd is always opened with O_CLOEXEC.
    return (int)syscall(SYS_pidfd_open, pid, 0);
}
