// sshelf: the executable. SshelfMain wires the faces together; this only hands over the process.
import Glibc

exit(SshelfMain.run())
