// BackgroundThreadTests: the stand-in for Foundation's Thread runs its body on another thread, under its name.
import Foundation
import XCTest
@testable import ShelfSystem

final class BackgroundThreadTests: XCTestCase {
    func testTheBodyRunsOnANamedThreadOfItsOwn() throws {
        let running = DispatchSemaphore(value: 0), finish = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var ranElsewhere = false
        let caller = pthread_self()
        BackgroundThread.start(name: "sshelf-test-thread-long-name") {
            ranElsewhere = pthread_equal(pthread_self(), caller) == 0
            running.signal()
            finish.wait()
        }
        XCTAssertEqual(running.wait(timeout: .now() + 30), .success)
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
        let names = tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
        finish.signal()
        XCTAssertTrue(ranElsewhere)
        XCTAssertTrue(names.contains("sshelf-test-thr\n"), "named, cut to Linux's 15 bytes: \(names)")
    }
}
