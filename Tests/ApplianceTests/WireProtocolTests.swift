import Core
import Foundation
import Testing

/// The WebSocket itself, frame by frame, against a running box: what RFC 6455 asks of a server
/// (pings, fragments, the closing handshake, frames it must refuse), the upgrade, and the messages
/// a client sends before the box has finished admitting it.
///
/// One test at a time, each with its own box. The raw sockets block, so they are read off the
/// test threads (`offTheTestThreads`).
@Suite("WebSocket frames", .serialized, .timeLimit(.minutes(5)))
struct WireProtocolTests {
    let box: BoxProcess
    let http: HTTP

    init() async throws {
        let box = try BoxProcess()
        try await box.start()
        self.box = box
        http = HTTP(base: box.baseURL)
    }

    private var resume: String { String(decoding: ClientMessage.resumeSession.encoded(), as: UTF8.self) }

    /// A host's socket, admitted: its WELCOME and first snapshot are read.
    private func admitted() async throws -> RawWebSocket {
        let token = try await http.post("/v1/sessions").string("hostAuthToken")
        let port = box.port
        return try await offTheTestThreads {
            let socket = try RawWebSocket.open(port: port, token: token)
            guard try socket.readMessage("WELCOME") != nil, try socket.readMessage("STATE_SNAPSHOT") != nil else {
                throw HarnessError.unexpected("not admitted")
            }
            return socket
        }
    }

    @Test("a ping is answered with a pong that carries its payload")
    func ping() async throws {
        let socket = try await admitted()
        let pong = try await offTheTestThreads { () -> RawWebSocket.Frame? in
            socket.write(RawWebSocket.frame(0x9, Array("are you there".utf8)))
            while let frame = try socket.readFrame() {
                if frame.opcode == 0xA { return frame }
            }
            return nil
        }
        #expect(pong?.text == "are you there")
    }

    @Test("a client that pings and never reads leaves no backlog of pongs in the box")
    func pingFlood() async throws {
        let token = try await http.post("/v1/sessions").string("hostAuthToken")
        let (port, box) = (self.box.port, self.box)
        let before = try box.memoryKiB()
        let socket = try await offTheTestThreads {
            let socket = try RawWebSocket.open(port: port, token: token, receiveBuffer: 4096)
            // 60,000 pings of 125 bytes: 7.5 MB of pongs if every one were kept for the socket.
            let ping = RawWebSocket.frame(0x9, [UInt8](repeating: 0x2A, count: 125))
            for _ in 0..<60 { socket.write(Array([[UInt8]](repeating: ping, count: 1_000).joined())) }
            return socket
        }
        // The box reads them all (the socket stays open); what it holds for the socket stays small.
        try await Task.sleep(for: .milliseconds(500))
        let healthz = try await http.get("/healthz")
        #expect(healthz.status == 200)
        let grown = try box.memoryKiB() - before
        #expect(grown < 3 * 1024, "the box's memory grew by \(grown) KiB")
        _ = socket
    }

    @Test("a message in three fragments is read as one; fragments over 16 KiB in all close with 1009")
    func fragments() async throws {
        let socket = try await admitted()
        let resume = self.resume
        let third = resume.count / 3
        let snapshot = try await offTheTestThreads {
            let bytes = Array(resume.utf8)
            socket.write(RawWebSocket.frame(0x1, Array(bytes[..<third]), fin: false))
            socket.write(RawWebSocket.frame(0x0, Array(bytes[third..<(2 * third)]), fin: false))
            socket.write(RawWebSocket.frame(0x0, Array(bytes[(2 * third)...])))
            return try socket.readMessage("STATE_SNAPSHOT")
        }
        #expect(snapshot != nil)

        let close = try await offTheTestThreads {
            // Each fragment is under the limit of a frame; together they are over that of a message.
            let chunk = [UInt8](repeating: 0x20, count: 6_000)
            socket.write(RawWebSocket.frame(0x1, Array("{\"type\":\"PING\",\"payload\":{\"x\":\"".utf8), fin: false))
            for _ in 0..<3 { socket.write(RawWebSocket.frame(0x0, chunk, fin: false)) }
            return try socket.readClose()
        }
        #expect(close.code == 1009)
        #expect(close.closed)
    }

    @Test("a frame with a reserved bit, with an opcode RFC 6455 reserves, or not masked, closes with 1002")
    func reservedFrames() async throws {
        for frame in [
            RawWebSocket.frame(0x1, Array(resume.utf8), reserved: 0b100), RawWebSocket.frame(0x3, [1, 2]),
            RawWebSocket.frame(0x1, Array(resume.utf8), masked: false),
            RawWebSocket.frame(0x1, Array(resume.utf8), fin: false, masked: false),
        ] {
            let socket = try await admitted()
            let close = try await offTheTestThreads {
                socket.write(frame)
                return try socket.readClose()
            }
            #expect(close.code == 1002)
            #expect(close.closed)
        }
    }

    @Test("a client's close is answered (1000, or 1002 for a code no one may send) and the box hangs up")
    func clientCloses() async throws {
        for (sent, answer) in [(1000, 1000), (1001, 1000), (4321, 1000), (2999, 1002), (1005, 1002)] {
            let socket = try await admitted()
            let close = try await offTheTestThreads {
                socket.write(RawWebSocket.close(sent))
                return try socket.readClose()
            }
            #expect(close.code == answer, "client sent \(sent)")
            #expect(close.closed, "client sent \(sent)")
        }
    }

    @Test("messages sent right behind the HELLO, before the box has admitted the client, are all answered")
    func pipelinedAfterHello() async throws {
        let token = try await http.post("/v1/sessions").string("hostAuthToken")
        let hello = String(
            decoding: ClientMessage.hello(.init(role: .host, authToken: token)).encoded(), as: UTF8.self)
        let port = box.port
        let resume = self.resume
        let (welcome, snapshots) = try await offTheTestThreads {
            let socket = try RawWebSocket.open(port: port)
            // One write: HELLO, then three RESUME_SESSION, all in the same read on the box's side.
            socket.write(([hello] + Array(repeating: resume, count: 3)).flatMap { RawWebSocket.text($0) })
            var before: [RawWebSocket.Frame] = []
            let welcome = try socket.readMessage("WELCOME", skipped: &before)
            var snapshots = 0
            for _ in 0..<4 where try socket.readMessage("STATE_SNAPSHOT") != nil { snapshots += 1 }
            return (welcome != nil && before.isEmpty, snapshots)
        }
        #expect(welcome)
        // One for being admitted, one for each RESUME_SESSION.
        #expect(snapshots == 4)
    }

    @Test("HEAD is answered as GET is, with no body: the connection's next answer follows at once")
    func head() async throws {
        let port = box.port
        let answers = try await offTheTestThreads {
            let connection = try RawWebSocket(
                port: port, request: "HEAD /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
            var answers = [try connection.readHead()]
            for request in ["HEAD / HTTP/1.1", "GET /healthz HTTP/1.1"] {
                connection.write(Array("\(request)\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))
                answers.append(request.hasPrefix("HEAD") ? try connection.readHead() : try connection.readResponse())
            }
            return answers
        }
        #expect(answers.allSatisfy { $0.hasPrefix("HTTP/1.1 200") }, "\(answers)")
        #expect(answers[1].lowercased().contains("content-type: text/html"))
    }

    @Test("an upgrade to another path gets 400; one on a connection that served a page is sent to a new one")
    func upgrades() async throws {
        let port = box.port
        let (wrongPath, late) = try await offTheTestThreads {
            let wrong = try RawWebSocket(port: port, request: RawWebSocket.upgrade(port: port, path: "/socket"))
            let wrongHead = try wrong.readResponse()
            let reused = try RawWebSocket(
                port: port, request: "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
            let first = try reused.readResponse()
            reused.write(Array(RawWebSocket.upgrade(port: port).utf8))
            return (wrongHead, first.hasPrefix("HTTP/1.1 200") ? try reused.readResponse() : first)
        }
        #expect(wrongPath.hasPrefix("HTTP/1.1 400"))
        #expect(late.hasPrefix("HTTP/1.1 307"))
        #expect(late.lowercased().contains("location: /ws"))
    }

    @Test("a first request that cannot be parsed gets 400 and a close; one that never comes is hung up on in 10 s")
    func unparseableAndSilent() async throws {
        let port = box.port
        let (answers, silent, trickled) = try await offTheTestThreads {
            var answers: [String] = []
            for request in [
                "FOO / HTTP/1.1\r\n\r\n", "GET /\(String(repeating: "a", count: 90_000)) HTTP/1.1\r\nHost: x\r\n\r\n",
                "\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}\u{00}",
            ] {
                let connection = try RawWebSocket(port: port, request: request, timeout: .seconds(5))
                let head = try connection.readResponse()
                answers.append(try connection.readFrame() == nil ? head : "still open after: \(head)")
            }
            // Nothing at all, and a request head that never ends.
            let start = ContinuousClock.now
            let silent = try RawWebSocket(port: port, request: "", timeout: .seconds(20))
            let trickled = try RawWebSocket(port: port, request: "GET / HTTP/1.1\r\nHost: x\r\n", timeout: .seconds(20))
            let silentClosed = try silent.readFrame() == nil
            let trickledClosed = try trickled.readFrame() == nil
            return (answers, silentClosed ? ContinuousClock.now - start : nil, trickledClosed)
        }
        #expect(answers.count == 3)
        #expect(answers.allSatisfy { $0.hasPrefix("HTTP/1.1 400") && $0.lowercased().contains("connection: close") })
        let waited = try #require(silent)
        #expect(waited >= .seconds(9) && waited < .seconds(15), "\(waited)")
        #expect(trickled)
    }

    @Test("a request whose body trickles in, a byte every 3 s, is hung up on 30 s after its head")
    func tricklingBody() async throws {
        let port = box.port
        let closedAfter = try await offTheTestThreads { () -> Duration? in
            let request =
                "POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
            let trickling = try RawWebSocket(port: port, request: request, timeout: .seconds(3))
            let start = ContinuousClock.now
            while ContinuousClock.now - start < .seconds(60) {
                trickling.write([UInt8(ascii: " ")])
                // nil: closed by the box; a throw: nothing yet within 3 s.
                if case .some(.none) = try? trickling.readFrame() { return ContinuousClock.now - start }
            }
            return nil
        }
        let waited = try #require(closedAfter)
        #expect(waited >= .seconds(28) && waited < .seconds(40), "\(waited)")
    }

    @Test("SIGTERM: a socket still waiting for its HELLO is closed with 1001 too, and the box exits")
    func shutdownBeforeHello() async throws {
        let (port, box) = (self.box.port, self.box)
        // Opened and SIGTERM sent in one go, off the test threads, so that the box has its
        // SIGTERM long before the socket's 5 s for a HELLO are up, however busy the machine.
        let socket = try await offTheTestThreads {
            let socket = try RawWebSocket.open(port: port)
            box.terminate()
            return socket
        }
        await box.stop()
        #expect(box.exitStatus == 0)
        let close = try await offTheTestThreads { try socket.readClose() }
        #expect(close.code == 1001)
    }
}
