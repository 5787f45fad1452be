import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where phones can reach the box, from the address its server is bound to (`--host`, resolved):
/// every interface (the wildcard addresses, the default), or one address of one interface, which
/// its links and its mDNS announcement then name.
struct ListenHost: Sendable, Equatable {
    let host: String

    var isWildcard: Bool { ["", "0.0.0.0", "::"].contains(host) }

    /// The address family of the one address; nil on every interface.
    var isIPv6: Bool? { isWildcard ? nil : host.contains(":") }

    /// The host part of the box's links when it listens on one address only; nil on every
    /// interface (the links then carry the LAN IPv4 address).
    var urlHost: String? {
        guard !isWildcard else { return nil }
        return host.contains(":") ? "[\(host)]" : host
    }

    /// The interface the address is on, so that the box is announced only where it can be
    /// reached (loopback for 127.x and ::1); nil announces it on every interface, as for the
    /// wildcard or an address that is not this machine's.
    var interfaceIndex: Int32? {
        guard !isWildcard else { return nil }
        let interfaces = NetworkInterfaces.addresses()
        // Every 127.x address answers on loopback, listed or not.
        let onLoopback = host.hasPrefix("127.") || host == "::1"
        let found =
            interfaces.first { $0.address == host }
            ?? (onLoopback ? interfaces.first { $0.flags & Int32(IFF_LOOPBACK) != 0 } : nil)
        return found.map { Int32(if_nametoindex($0.name)) }
    }
}

/// The machine's interfaces' IPv4 and IPv6 addresses, as numeric text (`192.168.1.5`, `fe80::1`;
/// no `%` scope), with each interface's name and flags.
enum NetworkInterfaces {
    static func addresses() -> [(name: String, flags: Int32, address: String)] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var found: [(name: String, flags: Int32, address: String)] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr else { continue }
            let length: Int
            switch Int32(address.pointee.sa_family) {
            case AF_INET: length = MemoryLayout<sockaddr_in>.size
            case AF_INET6: length = MemoryLayout<sockaddr_in6>.size
            default: continue
            }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard getnameinfo(address, socklen_t(length), &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0
            else { continue }
            let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            found.append(
                (
                    String(cString: entry.pointee.ifa_name), Int32(entry.pointee.ifa_flags),
                    String(text.prefix { $0 != "%" })
                ))
        }
        return found
    }
}
