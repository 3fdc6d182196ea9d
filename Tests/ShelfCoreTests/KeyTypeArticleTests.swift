// KeyTypeArticleTests: "a" or "an" before a key type as it is read, letter by letter.
import ShelfCore
import XCTest

final class KeyTypeArticleTests: XCTestCase {
    func testEveryOpenSSHKeyTypeGetsTheArticleItIsReadWith() {
        XCTAssertEqual(KeyTypeArticle.with("ssh-ed25519"), "an ssh-ed25519")
        XCTAssertEqual(KeyTypeArticle.with("ssh-rsa"), "an ssh-rsa")
        XCTAssertEqual(KeyTypeArticle.with("ecdsa-sha2-nistp256"), "an ecdsa-sha2-nistp256")
        XCTAssertEqual(KeyTypeArticle.with("rsa-sha2-512"), "an rsa-sha2-512")
        XCTAssertEqual(KeyTypeArticle.with("sk-ssh-ed25519@openssh.com"), "an sk-ssh-ed25519@openssh.com")
        XCTAssertEqual(KeyTypeArticle.with("dsa"), "a dsa")
        XCTAssertEqual(KeyTypeArticle.with("ED25519"), "an ED25519")
    }
}
