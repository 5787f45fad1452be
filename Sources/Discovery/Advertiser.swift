import CAvahi
import Logging

/// What a box announces on the LAN: one name, its port, and TXT records, under each service type.
public struct Announcement: Sendable, Equatable {
    public static let triptoType = "_tripto._tcp"
    public static let httpType = "_http._tcp"

    public var name: String
    public var port: UInt16
    /// A `name` entry follows the service's name when a collision renames it.
    public var txt: [(key: String, value: String)]
    public var types: [String]
    /// The one network interface to announce on (its index); nil: every interface.
    public var interfaceIndex: Int32?
    /// The one address family the box is reached by; nil: both.
    public var family: Family?

    public enum Family: Sendable, Equatable {
        case ipv4, ipv6
    }

    public init(
        name: String, port: UInt16, txt: [(key: String, value: String)], types: [String], interfaceIndex: Int32? = nil,
        family: Family? = nil
    ) {
        self.name = name
        self.port = port
        self.txt = txt
        self.types = types
        self.interfaceIndex = interfaceIndex
        self.family = family
    }

    public static func == (a: Announcement, b: Announcement) -> Bool {
        a.name == b.name && a.port == b.port && a.types == b.types && a.interfaceIndex == b.interfaceIndex
            && a.family == b.family
            && a.txt.map { "\($0.key)=\($0.value)" } == b.txt.map { "\($0.key)=\($0.value)" }
    }
}

/// Publishes an `Announcement` through avahi-daemon and keeps it published: a name collision takes
/// Avahi's alternative name ("Tripto box #2"), a daemon that restarts gets the services again, and a
/// missing daemon or bus is retried by `connect()` without ever stopping the box.
public final class Advertiser: @unchecked Sendable {
    private let announcement: Announcement
    private let logger: Logger
    private let loop: AvahiLoop?
    // Touched only on Avahi's thread or with its lock held.
    private var client: OpaquePointer?
    private var group: OpaquePointer?
    private var name: String
    private var warnedUnavailable = false
    private var publishedName: String?
    /// Set when the client failed for good; `connect()` replaces it (it cannot be freed in its own callback).
    private var clientFailed = false

    public init(_ announcement: Announcement, logger: Logger) {
        self.announcement = announcement
        self.logger = logger
        self.name = announcement.name
        self.loop = AvahiLoop()
        if let loop, !loop.start() {
            logger.warning("mDNS: cannot start Avahi's event thread")
        }
    }

    /// The name the services are published under once Avahi confirmed them (nil before).
    public var currentName: String? { loop?.locked { publishedName } }

    /// Connects to avahi-daemon unless already connected. Returns false when there is no daemon or no
    /// system bus; the first such failure is logged as a warning, later ones quietly.
    @discardableResult
    public func connect() -> Bool {
        guard let loop else { return false }
        return loop.locked {
            if let failed = client, clientFailed {
                avahi_client_free(failed)
                client = nil
                clientFailed = false
            }
            if client != nil { return true }
            var error: Int32 = 0
            let context = Unmanaged.passUnretained(self).toOpaque()
            // NO_FAIL: wait for a daemon that is not up yet, and survive its restarts.
            let created = avahi_client_new(
                loop.api, AvahiClientFlags(rawValue: AVAHI_CLIENT_NO_FAIL.rawValue), clientCallback, context, &error)
            guard let created else {
                if !warnedUnavailable {
                    warnedUnavailable = true
                    logger.warning(
                        "mDNS: Avahi is not available; the box serves on, without announcing itself, and keeps trying",
                        metadata: ["error": "\(avahiError(error))"])
                }
                return false
            }
            client = created
            return true
        }
    }

    /// Withdraws the services and disconnects.
    public func stop() {
        guard let loop else { return }
        loop.stop()
        if let group { avahi_entry_group_free(group) }
        if let client { avahi_client_free(client) }
        group = nil
        client = nil
        publishedName = nil
    }

    deinit { stop() }

    // MARK: callbacks (Avahi's thread, lock held)

    fileprivate func clientChanged(_ client: OpaquePointer, _ state: AvahiClientState) {
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            if warnedUnavailable { logger.info("mDNS: Avahi is available") }
            warnedUnavailable = false
            publish(client)
        case AVAHI_CLIENT_S_COLLISION, AVAHI_CLIENT_S_REGISTERING:
            // The host name is changing: withdraw until the client runs again.
            if let group { avahi_entry_group_reset(group) }
            publishedName = nil
        case AVAHI_CLIENT_CONNECTING:
            // The daemon went away (or is not up yet): what it knew of our services is gone with it.
            dropGroup()
            if !warnedUnavailable {
                warnedUnavailable = true
                logger.warning("mDNS: waiting for avahi-daemon")
            }
        case AVAHI_CLIENT_FAILURE:
            logger.warning(
                "mDNS: Avahi client failed", metadata: ["error": "\(avahiError(avahi_client_errno(client)))"])
            // avahi_client_free (in connect) frees the client's groups too.
            group = nil
            publishedName = nil
            clientFailed = true
        default:
            break
        }
    }

    fileprivate func groupChanged(_ group: OpaquePointer, _ state: AvahiEntryGroupState) {
        switch state {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            publishedName = name
            logger.info("mDNS: announced", metadata: ["name": "\(name)", "port": "\(announcement.port)"])
        case AVAHI_ENTRY_GROUP_COLLISION:
            takeAlternativeName()
            if let client = avahi_entry_group_get_client(group) { publish(client) }
        case AVAHI_ENTRY_GROUP_FAILURE:
            logger.warning(
                "mDNS: announcing failed",
                metadata: ["error": "\(avahiError(avahi_client_errno(avahi_entry_group_get_client(group))))"])
            publishedName = nil
        default:
            break
        }
    }

    private func dropGroup() {
        if let group { avahi_entry_group_free(group) }
        group = nil
        publishedName = nil
    }

    private func takeAlternativeName() {
        guard let alternative = avahi_alternative_service_name(name) else { return }
        let next = String(cString: alternative)
        avahi_free(alternative)
        logger.info("mDNS: name taken, using another", metadata: ["taken": "\(name)", "name": "\(next)"])
        name = next
    }

    /// (Re)adds every service type under the current name and commits them.
    private func publish(_ client: OpaquePointer) {
        if group == nil {
            group = avahi_entry_group_new(client, groupCallback, Unmanaged.passUnretained(self).toOpaque())
        }
        guard let group else {
            logger.warning(
                "mDNS: cannot create an entry group", metadata: ["error": "\(avahiError(avahi_client_errno(client)))"])
            return
        }
        avahi_entry_group_reset(group)
        let avahiProtocol: AvahiProtocol =
            switch announcement.family {
            case .ipv4: AvahiProtocol(tripto_avahi_proto_inet())
            case .ipv6: AvahiProtocol(tripto_avahi_proto_inet6())
            case nil: AvahiProtocol(tripto_avahi_proto_unspec())
            }
        var records: UnsafeMutablePointer<AvahiStringList>? = nil
        defer { avahi_string_list_free(records) }
        for attempt in 0..<10 {
            // Made again for each name tried: `name=` says the name the box is found under.
            avahi_string_list_free(records)
            records = nil
            for (key, value) in announcement.txt {
                records = avahi_string_list_add(records, "\(key)=\(key == "name" ? name : value)")
            }
            var result: Int32 = 0
            for type in announcement.types {
                result = avahi_entry_group_add_service_strlst(
                    group, AvahiIfIndex(announcement.interfaceIndex ?? Int32(tripto_avahi_if_unspec())), avahiProtocol,
                    AvahiPublishFlags(0), name, type, nil, nil, announcement.port, records)
                if result < 0 { break }
            }
            if result == Int32(AVAHI_ERR_COLLISION), attempt < 9 {
                takeAlternativeName()
                avahi_entry_group_reset(group)
                continue
            }
            if result < 0 {
                logger.warning("mDNS: cannot add the service", metadata: ["error": "\(avahiError(result))"])
                return
            }
            break
        }
        let committed = avahi_entry_group_commit(group)
        if committed < 0 {
            logger.warning("mDNS: cannot commit the services", metadata: ["error": "\(avahiError(committed))"])
        }
    }
}

private let clientCallback: AvahiClientCallback = { client, state, context in
    guard let client, let context else { return }
    Unmanaged<Advertiser>.fromOpaque(context).takeUnretainedValue().clientChanged(client, state)
}

private let groupCallback: AvahiEntryGroupCallback = { group, state, context in
    guard let group, let context else { return }
    Unmanaged<Advertiser>.fromOpaque(context).takeUnretainedValue().groupChanged(group, state)
}
