import Testing

@testable import Core

@Suite("Answer matching")
struct AnswerMatchingTests {
    static let gothenburg = Destination(
        id: "goteborg", name: "Göteborg", aliases: ["Gothenburg"], country: "Sverige", region: "Västra Götaland",
        lat: 57.7, lon: 11.97, revealText: "", clues: [], followups: [])

    @Test(
        "normalisation",
        arguments: [
            ("  Göteborg ", "goteborg"),
            ("GÖTEBORG!", "goteborg"),
            ("staden Paris", "paris"),
            ("The City of London", "london"),
            ("Malmö kommun", "malmo"),
            ("São Paulo", "saopaulo"),
            ("Zürich", "zurich"),
            ("Kraków", "krakow"),
            ("Ærøskøbing", "aeroskobing"),
            ("Côte d'Azur", "cotedazur"),
            ("Saint-Tropez", "sainttropez"),
            ("New   York", "newyork"),
            ("The City", "thecity"),
            ("1621", "1621"),
            ("", ""),
        ])
    func normalisation(input: String, expected: String) {
        #expect(AnswerText.normalized(input) == expected)
    }

    @Test(
        "destination answers that are accepted",
        arguments: [
            "Göteborg", "goteborg", "GOTEBORG", "Gothenburg", "gothenburg ", "staden Göteborg", "Göteborgs stad",
            "Götebrog", "Gothenbrug", "Göteborgs", "Gotenburg", "the city of Gothenburg",
        ])
    func acceptedDestination(answer: String) {
        #expect(AnswerKey.destination(Self.gothenburg).accepts(answer))
    }

    @Test(
        "destination answers that are not accepted",
        arguments: ["Stockholm", "Göta", "Borg", "Göteborgsvägen 12", "", "   ", "!!!", "Gotland", "Götene"])
    func rejectedDestination(answer: String) {
        #expect(!AnswerKey.destination(Self.gothenburg).accepts(answer))
    }

    @Test(
        "the country is never the place, even when a name loses a stopword (Mexico City → mexico), unless it is the place"
    )
    func countryIsNotThePlace() {
        let mexicoCity = Destination(
            id: "mexico-city", name: "Mexico City", aliases: ["Ciudad de México", "CDMX"], country: "Mexiko",
            countryAliases: ["Mexico"], region: "", lat: 0, lon: 0, revealText: "", clues: [], followups: [])
        let key = AnswerKey.destination(mexicoCity)
        for answer in ["Mexico City", "mexico city", "Ciudad de Mexico", "cdmx"] {
            #expect(key.accepts(answer), "\(answer)")
        }
        for answer in ["Mexico", "Mexiko", "México", "staden Mexico"] {
            #expect(!key.accepts(answer), "\(answer)")
        }
        let singapore = Destination(
            id: "singapore", name: "Singapore", aliases: ["Singapur"], country: "Singapore", region: "", lat: 0,
            lon: 0, revealText: "", clues: [], followups: [])
        // A city-state is its country: any way of saying the name counts, stopwords and all.
        for answer in ["Singapore", "Singapur", "The SINGAPORE city!", "staden Singapore", "Singápöre"] {
            #expect(AnswerKey.destination(singapore).accepts(answer), "\(answer)")
        }
    }

    /// Real near-misses between different places: Jaro-Winkler alone would accept some of them.
    @Test(
        "different places never match",
        arguments: [
            ("Bern", "Berlin"), ("Berlin", "Bern"), ("Paris", "Parma"), ("Vienna", "Venice"), ("Malmö", "Malmberget"),
            ("Luleå", "Lund"), ("Oslo", "Osaka"), ("Porto", "Prato"), ("Turin", "Turku"), ("Riga", "Rija"),
            ("Växjö", "Vaxholm"), ("Salzburg", "Strasbourg"), ("Sevilla", "Sevastopol"), ("Kalmar", "Karlstad"),
            ("Uppsala", "Upplands Väsby"),
        ])
    func nearMisses(place: String, answer: String) {
        let destination = Destination(
            id: "x", name: place, aliases: [], country: "", region: "", lat: 0, lon: 0, revealText: "", clues: [],
            followups: [])
        #expect(!AnswerKey.destination(destination).accepts(answer))
    }

    @Test("Jaro-Winkler reference values")
    func jaroWinklerValues() {
        #expect(abs(jaroWinkler("martha", "marhta") - 0.9611) < 0.001)
        #expect(abs(jaroWinkler("dwayne", "duane") - 0.84) < 0.001)
        #expect(abs(jaroWinkler("dixon", "dicksonx") - 0.8133) < 0.001)
        #expect(jaroWinkler("", "") == 1)
        #expect(jaroWinkler("abc", "") == 0)
        #expect(jaroWinkler("same", "same") == 1)
        // The pair that shows why short answers get no fuzzy matching.
        #expect(jaroWinkler("bern", "berlin") >= AnswerKey.fuzzyThreshold)
    }

    @Test("followups match exactly after normalisation, never fuzzily")
    func followups() {
        let followup = Followup(
            question: "Which park?", answer: "Liseberg", accepted: ["Lisebergs nöjespark"], sources: ["https://x.org"])
        let key = AnswerKey.followup(followup)
        #expect(key.accepts("liseberg"))
        #expect(key.accepts("LISEBERG."))
        #expect(key.accepts("Lisebergs Nöjespark"))
        #expect(!key.accepts("Lisebrg"))
        #expect(!key.accepts("Gröna Lund"))
        let year = AnswerKey.followup(Followup(question: "When?", answer: "1621", sources: ["https://x.org"]))
        #expect(year.accepts(" 1621 "))
        #expect(!year.accepts("1622"))
    }
}
