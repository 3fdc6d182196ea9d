// Foundation on Linux has a `Host` class too; inside this module `Host` always means the sshelf model.
import ShelfCore

typealias Host = ShelfCore.Host
