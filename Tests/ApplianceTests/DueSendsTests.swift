import Testing

@testable import Appliance

/// When a room sends what is due, without a room: one send at the next free moment for a burst of
/// commands, one after the presence window for a wave of connections, and whichever comes first
/// takes everything along.
@Suite("due sends")
struct DueSendsTests {
    @Test("a burst of changes schedules one send; what it takes is due once")
    func burst() {
        var due = DueSends()
        let scheduled = (0..<5).map { _ in due.changed() }
        #expect(scheduled == [true, false, false, false, false])
        due.nextMomentCame()
        let taken = due.take()
        #expect(taken.lobby == false && taken.snapshots == true)
        let again = due.take()
        #expect(again.lobby == false && again.snapshots == false)
        let next = due.changed()
        #expect(next)
    }

    @Test("presence changes wait for the window; a command's send in between takes them along")
    func presence() {
        var due = DueSends()
        let scheduled = (0..<3).map { _ in due.presenceChanged() }
        #expect(scheduled == [true, false, false])
        let commandSend = due.changed()
        #expect(commandSend)
        due.nextMomentCame()
        let taken = due.take()
        #expect(taken.lobby && taken.snapshots)
        // The window ends with nothing left: no second send.
        let leftOver = due.presenceWindowEnded()
        #expect(!leftOver)
        let another = [due.presenceChanged(), due.presenceWindowEnded()]
        #expect(another == [true, true])
    }
}
