// Property test: random operation schedules over three devices, with batches delivered shuffled, duplicated
// and late, and clocks that disagree, always converge to one state once everything is delivered.
import Foundation
import ShelfCore
import ShelfStore
import ShelfSync
import XCTest

final class ConvergenceTests: XCTestCase {
    /// A small deterministic generator, so a failing schedule can be replayed from its seed.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    func testRandomSchedulesConverge() throws {
        let schedules = Int(ProcessInfo.processInfo.environment["SSHELF_CONVERGENCE_SCHEDULES"] ?? "") ?? 250
        for seed in 0..<UInt64(schedules) {
            try runSchedule(seed: seed, operations: 40)
        }
    }

    func runSchedule(seed: UInt64, operations: Int) throws {
        var random = SplitMix(state: seed)
        // Each device syncs against its own view of the remote; the "network" copies batch files between
        // views in random order, sometimes twice, sometimes late.
        let views = try (0..<3).map { _ in try makeFolder("view") }
        let devices = try (0..<3).map { _ in try Device() }
        for (device, view) in zip(devices, views) {
            try device.enable(folder: view)
            let skew = Double(Int.random(in: -5000...5000, using: &random))
            final class Tick: @unchecked Sendable { var value = 0.0 }
            let tick = Tick()
            device.store.now = {
                tick.value += 1
                return Date(timeIntervalSince1970: 1_800_000_000 + skew + tick.value * 0.0005)
            }
        }
        var known: [UUID] = []
        var groups: [UUID] = []
        for _ in 0..<operations {
            let device = devices[Int.random(in: 0..<3, using: &random)]
            switch Int.random(in: 0..<10, using: &random) {
            case 0...2:
                let host = ShelfCore.Host(name: "h\(Int.random(in: 0..<50, using: &random))", hostname: "x.example",
                                          groupID: groups.randomElement(using: &random))
                try device.store.write { try $0.save(host) }
                known.append(host.id)
            case 3...5:
                guard let id = known.randomElement(using: &random), var host = try device.store.host(id: id) else { continue }
                host.port = Int.random(in: 1...65535, using: &random)
                host.name = "e\(Int.random(in: 0..<50, using: &random))"
                try device.store.write { try $0.save(host) }
            case 6:
                guard let id = known.randomElement(using: &random) else { continue }
                try device.store.write { try $0.deleteHost(id) }
            case 7:
                let group = HostGroup(name: "g\(Int.random(in: 0..<9, using: &random))", parentID: groups.randomElement(using: &random))
                try device.store.write { try $0.save(group) }
                groups.append(group.id)
            case 8:
                device.sync()
            default:
                deliver(from: views, count: Int.random(in: 0...4, using: &random), random: &random)
            }
        }
        // Deliver everything (twice, shuffled), then let every device sync until nothing moves.
        for (device, _) in zip(devices, views) { device.sync() }
        deliver(from: views, count: .max, random: &random)
        deliver(from: views, count: .max, random: &random)
        for device in devices { device.sync() }
        let states = try devices.map { try $0.state() }
        XCTAssertEqual(states[0], states[1], "seed \(seed)")
        XCTAssertEqual(states[1], states[2], "seed \(seed)")
    }

    /// Copies up to `count` batch files that a view lacks from the view that holds them, in random order.
    func deliver(from views: [String], count: Int, random: inout SplitMix) {
        var pending: [(source: String, target: String, relative: String)] = []
        for source in views {
            let devicesDir = source + "/devices"
            for device in (try? FileManager.default.contentsOfDirectory(atPath: devicesDir)) ?? [] {
                for file in ["device.json"] + ((try? FileManager.default.contentsOfDirectory(atPath: devicesDir + "/\(device)/config")) ?? []).map({ "config/" + $0 }) {
                    for target in views where target != source {
                        let relative = "devices/\(device)/\(file)"
                        if !FileManager.default.fileExists(atPath: target + "/" + relative) { pending.append((source, target, relative)) }
                    }
                }
            }
        }
        pending.shuffle(using: &random)
        // device.json first for each target, so a batch is never delivered into a folder without its owner.
        pending.sort { ($0.relative.hasSuffix("device.json") ? 0 : 1) < ($1.relative.hasSuffix("device.json") ? 0 : 1) }
        for item in pending.prefix(count) {
            let destination = item.target + "/" + item.relative
            try? FileManager.default.createDirectory(atPath: (destination as NSString).deletingLastPathComponent,
                                                     withIntermediateDirectories: true)
            try? FileManager.default.copyItem(atPath: item.source + "/" + item.relative, toPath: destination)
        }
    }
}
