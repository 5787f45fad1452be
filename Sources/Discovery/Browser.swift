import CAvahi
import Foundation

/// A box found on the LAN.
public struct DiscoveredBox: Sendable, Equatable, Hashable {
    public var name: String
    public var host: String
    public var address: String
    public var port: Int
    public var txt: [String: String]

    /// `http://address:port` (an IPv6 address in brackets).
    public var url: String {
        address.contains(":") ? "http://[\(address)]:\(port)" : "http://\(address):\(port)"
    }
}

public struct DiscoveryError: Error, CustomStringConvertible {
    public var description: String
}

/// Finds boxes through avahi-daemon: browses a service type and resolves each service found.
public enum Browser {
    /// Every resolved service of `type`, once Avahi has said it has no more for now and every resolver
    /// has answered, or when `timeout` runs out (whichever is first).
    public static func browse(
        type: String = Announcement.triptoType, timeout: Duration = .seconds(3)
    ) async throws
        -> [DiscoveredBox]
    {
        let session = try BrowseSession(type: type)
        return await withCheckedContinuation { continuation in
            session.run(timeout: timeout) { continuation.resume(returning: $0) }
        }
    }
}

/// One browse: its own Avahi thread and client, collecting until done, then handing the result over once.
private final class BrowseSession: @unchecked Sendable {
    private let loop: AvahiLoop
    private let type: String
    private var client: OpaquePointer?
    private var browser: OpaquePointer?
    private var found: [String: DiscoveredBox] = [:]
    private var pending = 0
    private var allForNow = false
    private var finish: (([DiscoveredBox]) -> Void)?
    private var keepAlive: BrowseSession?

    /// Connects and starts browsing; Avahi's thread is not running yet, so no lock is needed here.
    init(type: String) throws {
        guard let loop = AvahiLoop() else { throw DiscoveryError(description: "cannot start Avahi's event thread") }
        self.loop = loop
        self.type = type
        var error: Int32 = 0
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let client = avahi_client_new(loop.api, AvahiClientFlags(rawValue: 0), { _, _, _ in }, context, &error)
        else {
            throw DiscoveryError(description: "avahi-daemon is not reachable: \(avahiError(error))")
        }
        self.client = client
        browser = avahi_service_browser_new(
            client, AvahiIfIndex(tripto_avahi_if_unspec()), AvahiProtocol(tripto_avahi_proto_inet()), type, nil,
            AvahiLookupFlags(0), browserCallback, context)
        guard browser != nil else {
            let message = avahiError(avahi_client_errno(client))
            avahi_client_free(client)
            throw DiscoveryError(description: "cannot browse \(type): \(message)")
        }
    }

    func run(timeout: Duration, finish: @escaping ([DiscoveredBox]) -> Void) {
        keepAlive = self
        loop.locked { self.finish = finish }
        guard loop.start() else {
            loop.locked { complete() }
            return
        }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
            loop.locked { complete() }
        }
    }

    /// Hands the result over once; later calls do nothing.
    private func complete() {
        guard let finish else { return }
        self.finish = nil
        finish(found.values.sorted { ($0.name, $0.address) < ($1.name, $1.address) })
        // Tear down off Avahi's thread: stopping the loop from inside it would deadlock.
        DispatchQueue.global().async { [self] in
            loop.stop()
            if let client { avahi_client_free(client) }
            client = nil
            browser = nil
            keepAlive = nil
        }
    }

    fileprivate func browserEvent(
        _ event: AvahiBrowserEvent, interface: AvahiIfIndex, proto: AvahiProtocol, name: String, domain: String
    ) {
        switch event {
        case AVAHI_BROWSER_NEW:
            guard let client else { return }
            let resolver = avahi_service_resolver_new(
                client, interface, proto, name, type, domain, AvahiProtocol(tripto_avahi_proto_inet()),
                AvahiLookupFlags(0), resolverCallback, Unmanaged.passUnretained(self).toOpaque())
            if resolver != nil { pending += 1 }
        case AVAHI_BROWSER_ALL_FOR_NOW:
            allForNow = true
            if pending == 0 { complete() }
        case AVAHI_BROWSER_FAILURE:
            complete()
        default:
            break
        }
    }

    fileprivate func resolved(_ box: DiscoveredBox?, resolver: OpaquePointer) {
        if let box { found["\(box.name)|\(box.address)|\(box.port)"] = box }
        avahi_service_resolver_free(resolver)
        pending -= 1
        if allForNow && pending == 0 { complete() }
    }
}

private let browserCallback: AvahiServiceBrowserCallback = {
    _, interface, proto, event, name, _, domain, _, context in
    guard let context else { return }
    Unmanaged<BrowseSession>.fromOpaque(context).takeUnretainedValue().browserEvent(
        event, interface: interface, proto: proto, name: name.map { String(cString: $0) } ?? "",
        domain: domain.map { String(cString: $0) } ?? "local")
}

private let resolverCallback: AvahiServiceResolverCallback = {
    resolver, _, _, event, name, _, _, host, address, port, txt, _, context in
    guard let resolver, let context else { return }
    let session = Unmanaged<BrowseSession>.fromOpaque(context).takeUnretainedValue()
    guard event == AVAHI_RESOLVER_FOUND, let name, let address else {
        session.resolved(nil, resolver: resolver)
        return
    }
    var text = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
    avahi_address_snprint(&text, text.count, address)
    let box = DiscoveredBox(
        name: String(cString: name), host: host.map { String(cString: $0) } ?? "",
        address: text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }, port: Int(port),
        txt: records(txt))
    session.resolved(box, resolver: resolver)
}

/// TXT records as a dictionary ("key=value"; a bare "key" maps to "").
private func records(_ list: UnsafeMutablePointer<AvahiStringList>?) -> [String: String] {
    var result: [String: String] = [:]
    var node = list
    while let current = node {
        var key: UnsafeMutablePointer<CChar>?
        var value: UnsafeMutablePointer<CChar>?
        var size = 0
        if avahi_string_list_get_pair(current, &key, &value, &size) == 0, let key {
            result[String(cString: key)] = value.map { String(cString: $0) } ?? ""
        }
        avahi_free(key)
        avahi_free(value)
        node = avahi_string_list_get_next(current)
    }
    return result
}
