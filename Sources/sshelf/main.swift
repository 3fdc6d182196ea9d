// sshelf: the executable. Everything happens in ShelfApp; this only hands over the process.
import ShelfApp

exitProcess(SshelfMain.run())
