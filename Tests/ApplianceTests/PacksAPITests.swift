import Core
import Foundation
import Testing

@testable import Appliance

/// CONTRACT 4.3 against a running box: packs written, exported and deleted with the admin token,
/// checked by the validator, playable at once, and kept through restarts and kill -9.
@Suite("Packs made on the box", .serialized, .timeLimit(.minutes(5)))
struct PacksAPITests {
    let box: BoxProcess
    let token: String

    init() async throws {
        box = try BoxProcess()
        try await box.start()
        token = try String(
            contentsOf: box.dataDirectory.appendingPathComponent("admin-token"), encoding: .utf8
        ).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A family's pack: two destinations of a shipped pack, under a new id and title.
    static func familyPack(_ packId: String = "our-trip", title: String = "Our trip") throws -> Data {
        let shipped = BoxProcess.repositoryRoot.appendingPathComponent("packs/en-europe/pack.json")
        var pack = try JSONSerialization.jsonObject(with: Data(contentsOf: shipped)) as! [String: Any]
        pack["packId"] = packId
        pack["title"] = title
        pack["destinations"] = Array((pack["destinations"] as! [Any]).prefix(2))
        return try JSONSerialization.data(withJSONObject: pack, options: [.sortedKeys])
    }

    private var http: HTTP { HTTP(base: box.baseURL) }
    private var admin: [String: String] { ["Authorization": "Bearer \(token)"] }

    private func put(_ packId: String, _ body: Data, headers: [String: String]? = nil) async throws -> HTTP.Reply {
        try await http.call("PUT", "/v1/packs/\(packId)", raw: body, headers: headers ?? admin)
    }

    private func listed() async throws -> [[String: Any]] {
        let reply = try await http.get("/v1/packs")
        return (try JSONSerialization.jsonObject(with: reply.body) as? [[String: Any]]) ?? []
    }

    @Test("the admin token is made at the first start, readable by the box's user only")
    func tokenFile() throws {
        let attributes = try FileManager.default.attributesOfItem(
            atPath: box.dataDirectory.appendingPathComponent("admin-token").path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(token.count >= 32)
    }

    @Test("no token or a wrong one is 401 for writing, exporting and deleting; the list is for everyone")
    func unauthorized() async throws {
        let body = try Self.familyPack()
        for headers in [[:], ["Authorization": "Bearer wrong"], ["Authorization": token]] {
            #expect(try await put("our-trip", body, headers: headers).status == 401)
            #expect(try await http.call("GET", "/v1/packs/en-europe", headers: headers).status == 401)
            #expect(try await http.call("DELETE", "/v1/packs/our-trip", headers: headers).status == 401)
        }
        #expect(try await http.get("/v1/packs").status == 200)
    }

    @Test("a new pack is 201, listed first as the box's, playable at once; replaced is 200; exported as stored")
    func writeListPlay() async throws {
        let body = try Self.familyPack()
        let created = try await put("our-trip", body)
        #expect(created.status == 201, "\(created.text)")
        #expect(created.string("packId") == "our-trip" && created.string("title") == "Our trip")
        #expect(created.json["destinations"] as? Int == 2 && created.json["warnings"] is [Any])
        let packs = try await listed()
        #expect(packs.first?["packId"] as? String == "our-trip" && packs.first?["origin"] as? String == "box")
        // Then the shipped packs, then the mixes (which take in the family's pack too).
        #expect(
            packs.map { $0["origin"] as? String ?? "" } == ["box"]
                + packs.dropFirst(1).dropLast(2).map { _ in "shipped" } + ["mix", "mix"])
        // The family's two destinations are copies of shipped ones: the English mix counts them once.
        let shippedEnglish = packs.filter { $0["language"] as? String == "en" && $0["origin"] as? String == "shipped" }
        #expect(packs.last?["destinations"] as? Int == shippedEnglish.map { $0["destinations"] as! Int }.reduce(0, +))
        let exported = try await http.call("GET", "/v1/packs/our-trip", headers: admin)
        #expect(exported.status == 200 && exported.body == body)

        let table = try await LiveTable.open(
            box, settings: ["packId": "our-trip", "introMs": 0, "destinationsCount": 1], players: ["Ada"], tv: false)
        table.host.send(.hostStartGame)
        let clue = try await table.players[0].socket.expect("CLUE_PRESENT")
        let texts = try Self.clueTexts(body)
        #expect(texts.contains(clue.payloadObject["clueText"] as? String ?? ""))

        let replaced = try await put("our-trip", Self.familyPack(title: "Our summer"))
        #expect(replaced.status == 200 && replaced.string("title") == "Our summer")
        #expect(try await listed().first?["title"] as? String == "Our summer")
    }

    static func clueTexts(_ pack: Data) throws -> [String] {
        let json = try JSONSerialization.jsonObject(with: pack) as! [String: Any]
        return (json["destinations"] as! [[String: Any]]).flatMap {
            ($0["clues"] as! [[String: Any]]).map { $0["text"] as! String }
        }
    }

    @Test("a pack that fails the validator is 422 with each problem's path, and nothing is saved")
    func invalid() async throws {
        let broken = try await put("our-trip", Data(#"{"packId": "our-trip", "#.utf8))
        #expect(broken.status == 422 && broken.error == "INVALID_PACK", "\(broken.text)")
        var pack = try JSONSerialization.jsonObject(with: Self.familyPack()) as! [String: Any]
        var destinations = pack["destinations"] as! [[String: Any]]
        var clues = destinations[0]["clues"] as! [[String: Any]]
        clues[0]["text"] = ""
        destinations[0]["clues"] = clues
        destinations[1]["followups"] = [["question": "Which year?", "sources": []]]
        pack["destinations"] = destinations
        let refused = try await put("our-trip", JSONSerialization.data(withJSONObject: pack))
        #expect(refused.status == 422 && refused.error == "INVALID_PACK")
        let problems = refused.json["problems"] as? [[String: String]] ?? []
        #expect(problems.contains { $0["path"]?.contains("destinations[0].clues[0].text") == true }, "\(problems)")
        #expect(problems.contains { $0["path"]?.contains("destinations[1].followups[0]") == true }, "\(problems)")
        #expect(problems.allSatisfy { !($0["message"] ?? "").isEmpty })
        let mismatch = try await put("our-trip", Self.familyPack("other-trip"))
        #expect(mismatch.status == 422)
        #expect((mismatch.json["problems"] as? [[String: String]])?.first?["path"] == "$.packId")
        #expect(try await listed().allSatisfy { $0["packId"] as? String != "our-trip" })
        #expect(try await http.call("GET", "/v1/packs/our-trip", headers: admin).status == 404)
    }

    @Test("shipped packs are read-only; ids that are not pack ids are refused; bodies over 1 MiB are 413")
    func refusals() async throws {
        let shipped = try await put("en-europe", Self.familyPack("en-europe"))
        #expect(shipped.status == 409 && shipped.error == "PACK_READ_ONLY")
        #expect(try await http.call("DELETE", "/v1/packs/en-europe", headers: admin).status == 409)
        #expect(try await http.call("GET", "/v1/packs/en-europe", headers: admin).status == 200, "shipped packs export")
        for id in ["..%2F..%2Fetc", "..%2Fen-europe", "AB", "Our-Trip", "-trip", String(repeating: "a", count: 41)] {
            let reply = try await put(id, Self.familyPack())
            #expect(reply.status == 400, "\(id): \(reply.status) \(reply.text)")
        }
        // A bare ".." is resolved by the client before it is sent: it never names a pack.
        #expect(try await put("..", Self.familyPack()).status == 404)
        let big = Data(repeating: UInt8(ascii: " "), count: (1 << 20) + 1)
        #expect(try await put("our-trip", big).status == 413)
        #expect(try await http.call("DELETE", "/v1/packs/nothing-here", headers: admin).status == 404)
    }

    @Test("two writers at once: every write succeeds whole, and the pack is one of them")
    func twoWriters() async throws {
        let titles = (0..<8).map { "Version \($0)" }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for title in titles {
                group.addTask { try await put("our-trip", Self.familyPack(title: title)).status }
                group.addTask { try await put("their-trip", Self.familyPack("their-trip", title: title)).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 201 }.count == 2 && statuses.allSatisfy { $0 == 200 || $0 == 201 })
        let exported = try await http.call("GET", "/v1/packs/our-trip", headers: admin)
        let title = (try JSONSerialization.jsonObject(with: exported.body) as? [String: Any])?["title"] as? String
        #expect(titles.contains(title ?? ""))
    }

    @Test("a pack survives a restart and a kill -9 in the middle of a write")
    func survivesKill() async throws {
        #expect(try await put("our-trip", Self.familyPack(title: "Before")).status == 201)
        let writing = Task { try? await put("our-trip", Self.familyPack(title: "After")) }
        try await Task.sleep(for: .milliseconds(2))
        await box.kill()
        _ = await writing.value
        try await box.start()
        let title = try await listed().first { $0["packId"] as? String == "our-trip" }?["title"] as? String
        #expect(title == "Before" || title == "After")
        await box.stop()
        try await box.start()
        #expect(try await listed().contains { $0["packId"] as? String == "our-trip" })
    }

    @Test("a pack deleted while a session plays it stays for that session, offered to no new one, then goes")
    func deleteInUse() async throws {
        #expect(try await put("our-trip", Self.familyPack()).status == 201)
        let table = try await LiveTable.open(
            box, settings: ["packId": "our-trip", "introMs": 0, "destinationsCount": 1], players: ["Ada"], tv: false)
        #expect(try await http.call("DELETE", "/v1/packs/our-trip", headers: admin).status == 204)
        #expect(try await listed().allSatisfy { $0["packId"] as? String != "our-trip" })
        #expect(try await http.call("GET", "/v1/packs/our-trip", headers: admin).status == 404)
        let refused = try await http.post("/v1/sessions", ["role": "HOST", "settings": ["packId": "our-trip"]])
        #expect(refused.status == 400)
        // Through a restart too, the live session still plays it.
        await box.stop()
        try await box.start()
        let host = TestSocket(url: box.webSocketURL, token: table.hostToken)
        try await host.expect("WELCOME")
        host.send(.hostStartGame)
        try await host.expect("CLUE_PRESENT")
        let folder = box.dataDirectory.appendingPathComponent("packs/our-trip")
        #expect(FileManager.default.fileExists(atPath: folder.path))
        host.send(.hostEndSession)
        try await host.expect("SESSION_ENDED")
        // Gone once no session plays it: at the next start.
        await box.stop()
        try await box.start()
        #expect(!FileManager.default.fileExists(atPath: folder.path))
        #expect(try await put("our-trip", Self.familyPack()).status == 201, "the id is free again")
    }

    private func check(_ packId: String, _ body: Data, headers: [String: String]? = nil) async throws -> HTTP.Reply {
        try await http.call("POST", "/v1/packs/\(packId)/check", raw: body, headers: headers ?? admin)
    }

    private func checkedProblems(_ reply: HTTP.Reply) -> [[String: String]] {
        reply.json["problems"] as? [[String: String]] ?? []
    }

    @Test("the check answers what a PUT would find, and saves nothing")
    func checkSavesNothing() async throws {
        let good = try await check("our-trip", Self.familyPack())
        #expect(good.status == 200, "\(good.text)")
        #expect(good.json["ok"] as? Bool == true && checkedProblems(good).isEmpty && good.json["warnings"] is [Any])
        #expect(try await listed().allSatisfy { $0["packId"] as? String != "our-trip" })
        #expect(try await http.call("GET", "/v1/packs/our-trip", headers: admin).status == 404)

        // The destination's name in its 6-point clue: found at that clue's text, said in words.
        var pack = try JSONSerialization.jsonObject(with: Self.familyPack()) as! [String: Any]
        var destinations = pack["destinations"] as! [[String: Any]]
        var clues = destinations[1]["clues"] as! [[String: Any]]
        clues[2]["text"] = "You can see the whole of \(destinations[1]["name"] as! String) from its castle."
        destinations[1]["clues"] = clues
        pack["destinations"] = destinations
        let named = try await check("our-trip", JSONSerialization.data(withJSONObject: pack))
        #expect(named.status == 200 && named.json["ok"] as? Bool == false)
        let problem = checkedProblems(named).first { $0["path"] == "$.destinations[1].clues[2].text" }
        #expect(problem?["message"]?.isEmpty == false, "\(named.text)")
        #expect((named.json["warnings"] as? [Any])?.isEmpty == true)

        let broken = try await check("our-trip", Data(#"{"packId": "our-trip", "#.utf8))
        #expect(broken.status == 200 && broken.json["ok"] as? Bool == false && !checkedProblems(broken).isEmpty)
        // The address's id is the one a PUT would save under; a shipped pack's id cannot be saved at all.
        let other = try await check("our-trip", Self.familyPack("other-trip"))
        #expect(checkedProblems(other).map { $0["path"] } == ["$.packId"], "\(other.text)")
        let shipped = try await check("en-europe", Self.familyPack("en-europe"))
        #expect(shipped.json["ok"] as? Bool == false && checkedProblems(shipped).map { $0["path"] } == ["$.packId"])
        #expect(try await check("mix-en", Self.familyPack("mix-en")).json["ok"] as? Bool == false)
    }

    @Test("the check passes on the validator's advice: an answer always in the same place is a warning")
    func checkWarns() async throws {
        var pack = try JSONSerialization.jsonObject(with: Self.familyPack()) as! [String: Any]
        let shipped = BoxProcess.repositoryRoot.appendingPathComponent("packs/en-europe/pack.json")
        let all = try JSONSerialization.jsonObject(with: Data(contentsOf: shipped)) as! [String: Any]
        pack["destinations"] = (all["destinations"] as! [[String: Any]]).prefix(4).map { destination in
            var destination = destination
            destination["followups"] = (destination["followups"] as! [[String: Any]]).map { followup in
                var followup = followup
                if let options = followup["options"] as? [String], let answer = followup["answer"] as? String {
                    followup["options"] = [answer] + options.filter { $0 != answer }
                }
                return followup
            }
            return destination
        }
        let reply = try await check("our-trip", JSONSerialization.data(withJSONObject: pack))
        #expect(reply.status == 200 && reply.json["ok"] as? Bool == true, "\(reply.text)")
        let warnings = reply.json["warnings"] as? [String] ?? []
        #expect(warnings.count == 1 && warnings.first?.contains("option 1") == true, "\(warnings)")
    }

    @Test("the check needs the admin token, a pack id in the address, and at most 1 MiB")
    func checkRefusals() async throws {
        let body = try Self.familyPack()
        for headers in [[:], ["Authorization": "Bearer wrong"]] {
            let reply = try await check("our-trip", body, headers: headers)
            #expect(reply.status == 401 && reply.error == "UNAUTHORIZED")
        }
        #expect(try await check("Our-Trip", body).status == 400)
        let big = Data(repeating: UInt8(ascii: " "), count: (1 << 20) + 1)
        #expect(try await check("our-trip", big).status == 413)
    }

    @Test("the banner and `tripto admin-token --link` print the studio's address with the token in it")
    func studioLink() async throws {
        // The box's own address (here the harness's --public-url), then the studio with the token.
        let line = box.banner.split(separator: "\n").first { $0.contains("/studio#") } ?? ""
        #expect(line.hasSuffix(" http://127.0.0.1:0/studio#token=\(token)"), "\(box.banner)")
        let (status, output) = try await PackCommandTests.run([
            "admin-token", "--link", "--data-dir", box.dataDirectory.path, "--public-url", "http://192.0.2.7:9000",
        ])
        #expect(status == 0 && output == "http://192.0.2.7:9000/studio#token=\(token)\n", "\(output)")
        let (_, plain) = try await PackCommandTests.run(["admin-token", "--data-dir", box.dataDirectory.path])
        #expect(plain == token + "\n", "without --link, only the token: `$(tripto admin-token)` in a script")
    }

    @Test("a unit test of the id rule: what a path could be made of is never a pack id")
    func idRule() {
        for id in ["our-trip", "abc", "sv-2026"] { #expect(PackLibrary.isWellFormed(id)) }
        for id in ["..", "a/b", "ab", "Our", "-ab", "a b", "å-resa", ""] { #expect(!PackLibrary.isWellFormed(id)) }
    }
}
