import Core

extension ClientMessage {
    /// What a room does with a message from a client it has seated.
    enum Handling {
        /// A second HELLO: refused, the socket is authenticated already.
        case alreadyAuthenticated
        /// RESUME_SESSION: a whole snapshot, at once.
        case resume
        /// PING: answered at once, without waiting behind the saves.
        case ping(Ping)
        /// HOST_START_GAME: the box draws the destinations first.
        case startGame
        /// BRAKE_PULL: judged by when it was pressed, on the connection's clock estimate.
        case brakePull(BrakePull)
        /// CLOCK_ECHO: a sample for the connection's clock estimate.
        case clockEcho(ClockEcho)
        /// HOST_SET_PACK: the box looks the pack up first.
        case setPack(String)
        /// Every other message is a game command from its sender.
        case command(Command)
    }

    var handling: Handling {
        switch self {
        case .hello: .alreadyAuthenticated
        case .resumeSession: .resume
        case .ping(let ping): .ping(ping)
        case .hostStartGame: .startGame
        case .hostNextClue: .command(.nextClue)
        case .hostNext, .hostSkip: .command(.next)
        case .hostForceReveal: .command(.forceReveal)
        case .hostPause: .command(.pause)
        case .hostResume: .command(.resume)
        case .hostKick(let kick): .command(.kick(playerId: kick.playerId))
        case .hostEndSession: .command(.end(reason: "host_ended"))
        case .hostRestart: .command(.restart)
        case .hostEndGame: .command(.endGame)
        case .hostSetPack(let choice): .setPack(choice.packId)
        case .musicGainSet(let gain): .command(.setMusicGain(gainDb: gain.gainDb))
        case .soundOutputSet(let set): .command(.setSoundOutput(tvPage: set.tvPage, boxMuted: set.boxMuted))
        case .brakePull(let pull): .brakePull(pull)
        case .clockEcho(let echo): .clockEcho(echo)
        case .brakeAnswerSubmit(let answer): .command(.brakeAnswer(answerText: answer.answerText))
        case .followupAnswerSubmit(let answer):
            .command(.followupAnswer(index: answer.index, answerText: answer.answerText))
        case .playerLeave: .command(.leave)
        }
    }
}
