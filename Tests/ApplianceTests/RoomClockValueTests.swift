import Testing

@testable import Appliance

/// The room's time as a value: the offset after a restart behind the log, and time that only goes forward.
@Suite("room clock")
struct RoomClockValueTests {
    @Test("a room rebuilt with the box's clock behind its log goes on in the log's time")
    func behindTheLog() {
        var clock = RoomClock(boxNow: 1_000, lastCommandAt: 5_000)
        #expect(clock.offset == 4_000 && clock.now == 5_000)
        #expect(clock.advance(1_500) == 5_500)
        let ahead = RoomClock(boxNow: 9_000, lastCommandAt: 5_000)
        #expect(ahead.offset == 0 && ahead.now == 9_000)
        #expect(RoomClock(boxNow: 9_000, lastCommandAt: nil).now == 9_000)
    }

    @Test("stamps that come in late take the room's later time; a deadline moves it on")
    func onlyForward() {
        var clock = RoomClock(boxNow: 1_000, lastCommandAt: nil)
        let stamps = [
            clock.advance(1_200), clock.advance(1_100), clock.advance(1_300), clock.reach(2_000), clock.advance(1_400),
        ]
        #expect(stamps == [1_200, 1_200, 1_300, 2_000, 2_000])
    }
}
