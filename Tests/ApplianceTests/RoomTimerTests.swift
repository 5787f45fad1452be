import Testing

@testable import Appliance
@testable import Core

/// The room's timer decisions, without a room: which deadline is armed, and the back-off after failures.
@Suite("room timer", .timeLimit(.minutes(5)))
struct RoomTimerTests {
    let clue = Deadline(timerId: "clue-1", at: 10_000)
    let reveal = Deadline(timerId: "reveal-1", at: 20_000)

    @Test("a deadline is armed once, replaced when the game's next one changes, and cancelled when none is due")
    func arming() {
        var timer = RoomTimer()
        #expect(timer.plan(next: nil) == .keep)
        #expect(timer.plan(next: clue) == .arm(clue, at: 10_000))
        #expect(timer.plan(next: clue) == .keep)
        #expect(timer.plan(next: reveal) == .arm(reveal, at: 20_000))
        #expect(timer.plan(next: nil) == .cancel)
        #expect(timer.armed == nil)
    }

    @Test("only the armed deadline fires, once")
    func firing() {
        var timer = RoomTimer()
        _ = timer.plan(next: clue)
        _ = timer.plan(next: reveal)
        let fired = [timer.fires(clue), timer.fires(reveal), timer.fires(reveal)]
        #expect(fired == [false, true, false])
        // Fired, nothing is armed: the same deadline still due is armed again.
        #expect(timer.plan(next: reveal) == .arm(reveal, at: 20_000))
        timer.disarm()
        #expect(timer.armed == nil)
    }

    @Test("after failures the timer waits 1 s, doubling up to 30 s, and starts over after a quiet minute")
    func backOff() {
        var timer = RoomTimer()
        _ = timer.plan(next: clue)
        var now: Int64 = 100_000
        var waits: [Int64] = []
        for _ in 0..<7 {
            waits.append(timer.backOff(now: now) - now)
            now += 1_000
        }
        #expect(waits == [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000])
        now += 60_000
        let notBefore = timer.backOff(now: now)
        #expect(notBefore == now + 1_000)
        // Held back even though the deadline itself has passed.
        #expect(timer.plan(next: clue, notBefore: notBefore) == .arm(clue, at: notBefore))
    }
}
