// CDescriptorShims: the bodies of the wrappers declared in include/CDescriptorShims.h.
#define _GNU_SOURCE 1
#include "CDescriptorShims.h"
#include <fcntl.h>
#include <stddef.h>
#include <sys/socket.h>
#include <unistd.h>

int cshims_pipe_cloexec(int fds[2], int nonblocking) {
    return pipe2(fds, O_CLOEXEC | (nonblocking ? O_NONBLOCK : 0));
}

int cshims_accept_cloexec(int listener, int nonblocking) {
    return accept4(listener, NULL, NULL, SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0));
}
