#include <libssh2.h>
#include <libssh2_sftp.h>
