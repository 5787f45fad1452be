import Core

/// What must survive a crash, from the host's view, with players by name (ids differ per box).
struct Checkpoint: Equatable, CustomStringConvertible {
    var phase: Phase
    var round: Int?
    var level: Int?
    var brakeOwner: String?
    var locked: [String]
    var followup: String?
    var followupAnswers: [String]
    var scores: [String]

    init(_ view: Projection) {
        let names = Dictionary(uniqueKeysWithValues: view.players.map { ($0.playerId, $0.name) })
        func name(_ id: ParticipantID) -> String { names[id] ?? "?" }
        phase = view.phase
        round = view.round?.index
        level = view.clue?.levelPoints
        brakeOwner = view.brake.map { name($0.brakeOwnerPlayerId) }
        locked = view.lockedAnswers.map { "\(name($0.playerId))@\($0.lockedAtLevelPoints):\($0.answerText ?? "")" }
        followup = view.followup.map { "\($0.index)/\($0.total) open=\($0.isOpen)" }
        followupAnswers = (view.followup?.answers ?? []).map { "\(name($0.playerId)):\($0.answerText)" }.sorted()
        scores = view.players.map { "\($0.name)=\($0.points)" }.sorted()
    }

    var description: String {
        "\(phase.rawValue) r\(round ?? 0) l\(level ?? 0) brake=\(brakeOwner ?? "-") locked=\(locked) "
            + "followup=\(followup ?? "-") answers=\(followupAnswers) scores=\(scores)"
    }
}
