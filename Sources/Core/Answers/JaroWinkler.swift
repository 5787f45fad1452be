/// Jaro-Winkler similarity (0…1) with the usual prefix scale 0.1 over at most four characters.
public func jaroWinkler(_ a: String, _ b: String) -> Double {
    let s1 = Array(a)
    let s2 = Array(b)
    if s1.isEmpty && s2.isEmpty { return 1 }
    if s1.isEmpty || s2.isEmpty { return 0 }
    let window = max(0, max(s1.count, s2.count) / 2 - 1)
    var matched1 = [Bool](repeating: false, count: s1.count)
    var matched2 = [Bool](repeating: false, count: s2.count)
    var matches = 0
    for i in s1.indices {
        let low = max(0, i - window)
        let high = min(s2.count - 1, i + window)
        guard low <= high else { continue }
        for j in low...high where !matched2[j] && s1[i] == s2[j] {
            matched1[i] = true
            matched2[j] = true
            matches += 1
            break
        }
    }
    if matches == 0 { return 0 }
    var halfTranspositions = 0
    var k = 0
    for i in s1.indices where matched1[i] {
        while !matched2[k] { k += 1 }
        if s1[i] != s2[k] { halfTranspositions += 1 }
        k += 1
    }
    let m = Double(matches)
    let t = Double(halfTranspositions / 2)
    let jaro = (m / Double(s1.count) + m / Double(s2.count) + (m - t) / m) / 3
    var prefix = 0
    while prefix < min(4, s1.count, s2.count) && s1[prefix] == s2[prefix] { prefix += 1 }
    return jaro + Double(prefix) * 0.1 * (1 - jaro)
}
