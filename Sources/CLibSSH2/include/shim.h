#include <libssh2.h>
#include <libssh2_sftp.h>

// libssh2 1.11's functions sshelf uses when the library it runs against has them (the header above is Debian 12's,
// 1.10): the types of their addresses, which sshelf_libssh2_optional looks up by name (NULL when missing).
typedef int (*sshelf_libssh2_userauth_banner)(LIBSSH2_SESSION *session, char **banner);
typedef int (*sshelf_libssh2_channel_signal_ex)(LIBSSH2_CHANNEL *channel, const char *signame, size_t signame_len);
typedef LIBSSH2_CHANNEL *(*sshelf_libssh2_channel_direct_streamlocal_ex)(LIBSSH2_SESSION *session,
                                                                        const char *socket_path, const char *shost,
                                                                        int sport);
void *sshelf_libssh2_optional(const char *name);
// The file the loaded libssh2 was opened from (NULL when none could be opened).
const char *sshelf_libssh2_path(void);
