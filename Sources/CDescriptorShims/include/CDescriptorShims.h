// CDescriptorShims: pipe2(2) and accept4(2) for ShelfSystem — glibc declares them only under _GNU_SOURCE, which
// Swift's Glibc module does not define. Both create their descriptors close-on-exec in the same system call, so a
// fork and exec on another thread never inherits one. They return -1 and set errno. Imported by ShelfSystem only.
#ifndef SSHELF_CDESCRIPTORSHIMS_H
#define SSHELF_CDESCRIPTORSHIMS_H

int cshims_pipe_cloexec(int fds[2], int nonblocking);
int cshims_accept_cloexec(int listener, int nonblocking);

#endif
