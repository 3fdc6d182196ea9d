// CDescriptorShims: pipe2(2), accept4(2), close_range(2) and O_PATH for ShelfSystem — glibc declares them only
// under _GNU_SOURCE, which Swift's Glibc module does not define. The first two create their descriptors close-on-exec in the
// same system call, so a fork and exec on another thread never inherits one; the third marks every descriptor from a
// number up close-on-exec (before a spawn that must pass on only what it names). pidfd_open(2) (no glibc wrapper
// before 2.36; syscall() is variadic, which Swift cannot call) gives a descriptor that polls readable once that
// process has ended. They return -1 and set errno. And glibc malloc's tuning (malloc.h is not in the Glibc module):
// the arena limit and malloc_trim, for the long-running service (ProcessMemory, memory.c). And a pseudo-terminal for
// a child that sshelf relays (TerminalChild).
// Imported by ShelfSystem only.
#ifndef SSHELF_CDESCRIPTORSHIMS_H
#define SSHELF_CDESCRIPTORSHIMS_H

int cshims_pipe_cloexec(int fds[2], int nonblocking);
int cshims_accept_cloexec(int listener, int nonblocking);
int cshims_cloexec_from(int lowest);
int cshims_pidfd_open(int pid);
/// open(2)'s O_PATH: a descriptor that names a folder without reading it, for the *at calls (PrivateDirectory).
int cshims_o_path(void);
/// A new pseudo-terminal's master end (close-on-exec, no controlling terminal), granted and unlocked, its other
/// end's path in `name` (posix_openpt, grantpt, unlockpt, ptsname_r: declared only under _XOPEN_SOURCE/_GNU_SOURCE).
int cshims_open_pty(char *name, unsigned long length);
/// mallopt(M_ARENA_MAX, arenas): 1 when set.
int cshims_malloc_arena_max(int arenas);
/// malloc_trim(0): 1 when memory was given back to the system.
int cshims_malloc_trim(void);

#endif
