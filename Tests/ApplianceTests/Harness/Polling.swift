/// Asks `value` every `interval` until it gives something, for at most `limit`; then its last answer.
func poll<T>(
    for limit: Duration, every interval: Duration = .milliseconds(10), _ value: () async throws -> T?
) async throws -> T? {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if let value = try await value() { return value }
        try await Task.sleep(for: interval)
    }
    return try await value()
}
