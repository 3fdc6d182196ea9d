// RecordingDigestTests: the SHA-256 a recording's release-log line keeps (RecordingDigest, libcrypto's) is SHA-256 as
// `sha256sum` prints it — the standard's test vectors, a million bytes fed in uneven pieces as a recording is written.
import ShelfVault
import XCTest

final class RecordingDigestTests: XCTestCase {
    private func digest(_ pieces: [[UInt8]]) -> String {
        let digest = RecordingDigest()
        for piece in pieces { digest.update(piece) }
        return digest.hex()
    }

    func testTheDigestIsSHA256AsSha256sumPrintsIt() {
        XCTAssertEqual(digest([]), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(
            digest([Array("abc".utf8)]), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // FIPS 180-2's million times "a", in pieces of uneven lengths (and an empty one).
        var pieces: [[UInt8]] = [[]]
        var left = 1_000_000
        var length = 1
        while left > 0 {
            let take = min(left, length)
            pieces.append([UInt8](repeating: UInt8(ascii: "a"), count: take))
            left -= take
            length = length * 7 % 65_521 + 1
        }
        XCTAssertEqual(digest(pieces), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
