import Core

/// What one bot decides to do about what its screen shows (its `ConsoleState`, as a player's
/// console sees it: no secrets), as plans to carry out after a while, and whether a plan still fits
/// once its time has come. Pure: the bot's loop (`Bot`) keeps the time and the socket.
struct BotMind: Sendable {
    /// A clue of a round: a pull is meant for one.
    struct ClueKey: Hashable, Sendable {
        var round: Int
        var levelPoints: Int
    }

    enum Action: Sendable, Equatable {
        case pull(ClueKey)
        case brakeAnswer(ClueKey, String)
        case followupAnswer(round: Int, index: Int, String)
    }

    struct Plan: Sendable, Equatable {
        var action: Action
        /// Milliseconds from now (from when the bot saw what it reacts to).
        var afterMs: Int
    }

    private(set) var brain: BotBrain
    let atlas: BotAtlas
    /// What has been decided on already: each clue, brake and followup once.
    private var seenClue: ClueKey?
    private var answeredBrake: ClueKey?
    private var seenFollowup: ClueKey?
    /// The destination of the round shown, once a clue named it in the packs.
    private var known: (round: Int, destination: Destination)?

    init(brain: BotBrain, atlas: BotAtlas) {
        self.brain = brain
        self.atlas = atlas
    }

    /// The clue on screen, when one is.
    static func clueKey(_ state: ConsoleState) -> ClueKey? {
        guard let projection = state.projection, let round = projection.round, let clue = projection.clue else {
            return nil
        }
        return ClueKey(round: round.index, levelPoints: clue.levelPoints)
    }

    /// The destination this bot knows the round to be, if its packs tell it.
    var knownDestination: Destination? { known?.destination }

    /// What to do about the screen as it is now; called after every message from the box.
    mutating func plans(for state: ConsoleState) -> [Plan] {
        guard let projection = state.projection else { return [] }
        if projection.phase == .lobby {
            // A new game (HOST_RESTART) starts its rounds at 1 again.
            seenClue = nil
            answeredBrake = nil
            seenFollowup = nil
            known = nil
            return []
        }
        var plans: [Plan] = []
        if let key = Self.clueKey(state), let clue = projection.clue {
            if known?.round != key.round, let destination = atlas.destination(clue: clue.clueText) {
                known = (key.round, destination)
            }
            if projection.phase == .clueLevel, key != seenClue {
                seenClue = key
                if !state.answerLocked, projection.brake == nil,
                    let delay = brain.pullDelay(levelIndex: clue.levelIndex)
                {
                    plans.append(Plan(action: .pull(key), afterMs: delay))
                }
            }
        }
        if state.answerTarget == .brake, let round = projection.round, let brake = projection.brake {
            let key = ClueKey(round: round.index, levelPoints: brake.levelPoints)
            if key != answeredBrake {
                answeredBrake = key
                let destination = known?.round == round.index ? known?.destination : nil
                let answer = brain.brakeAnswer(
                    right: destination?.name,
                    others: atlas.otherNames(
                        than: destination, packId: projection.settings.packId, language: projection.settings.language),
                    levelIndex: projection.clue?.levelIndex ?? 3)
                let delay = brain.typingDelay(limitMs: projection.settings.brakeAnswerSeconds * 1000 - 1500)
                plans.append(Plan(action: .brakeAnswer(key, answer), afterMs: delay))
            }
        }
        if case .followup(let index) = state.answerTarget, let round = projection.round,
            let followup = projection.followup
        {
            let key = ClueKey(round: round.index, levelPoints: index)
            if key != seenFollowup {
                seenFollowup = key
                let known = atlas.followup(question: followup.questionText)
                if let (answer, delay) = brain.followupAnswer(
                    right: known?.answer, options: followup.options,
                    others: atlas.otherAnswers(than: followup.questionText),
                    limitMs: projection.settings.followupSeconds * 1000 - 2000)
                {
                    plans.append(
                        Plan(action: .followupAnswer(round: round.index, index: index, answer), afterMs: delay))
                }
            }
        }
        return plans
    }

    /// The message for a plan whose time has come, if it still fits the screen (nil: the moment
    /// has passed: someone else pulled, the clue moved on, the followup closed). A pull says when
    /// it was made, `clientMs`, on the clock of the link's probe echoes.
    static func message(for action: Action, state: ConsoleState, at clientMs: Int64) -> ClientMessage? {
        guard let projection = state.projection, !projection.paused else { return nil }
        switch action {
        case .pull(let key):
            guard projection.phase == .clueLevel, projection.brake == nil, !state.answerLocked,
                clueKey(state) == key
            else { return nil }
            return .brakePull(ClientMessage.BrakePull(atClientMs: clientMs, levelPoints: key.levelPoints))
        case .brakeAnswer(let key, let text):
            guard state.answerTarget == .brake, projection.round?.index == key.round,
                projection.brake?.levelPoints == key.levelPoints
            else { return nil }
            return .brakeAnswerSubmit(ClientMessage.AnswerSubmit(answerText: text))
        case .followupAnswer(let round, let index, let text):
            guard state.answerTarget == .followup(index: index), projection.round?.index == round else { return nil }
            return .followupAnswerSubmit(ClientMessage.FollowupAnswerSubmit(index: index, answerText: text))
        }
    }
}
