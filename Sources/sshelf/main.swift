// sshelf: the executable. SshelfMain wires the faces together; this only hands over the process.
import Foundation

exit(SshelfMain.run())
