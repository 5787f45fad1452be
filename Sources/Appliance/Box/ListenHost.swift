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
        var v4 = in_addr()
        var v6 = in6_addr()
        let isV4 = inet_pton(AF_INET, host, &v4) == 1
        guard isV4 || inet_pton(AF_INET6, host, &v6) == 1 else { return nil }
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        var loopback: String?
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let name = String(cString: entry.pointee.ifa_name)
            if Int32(entry.pointee.ifa_flags) & Int32(IFF_LOOPBACK) != 0, loopback == nil { loopback = name }
            guard let address = entry.pointee.ifa_addr else { continue }
            let matches: Bool
            switch Int32(address.pointee.sa_family) {
            case AF_INET where isV4:
                matches = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    $0.pointee.sin_addr.s_addr == v4.s_addr
                }
            case AF_INET6 where !isV4:
                matches = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { entry in
                    withUnsafeBytes(of: entry.pointee.sin6_addr) { a in withUnsafeBytes(of: v6) { a.elementsEqual($0) }
                    }
                }
            default:
                matches = false
            }
            if matches { return Int32(if_nametoindex(name)) }
        }
        // Every 127.x address answers on loopback, listed or not.
        let onLoopback = isV4 ? UInt32(bigEndian: v4.s_addr) >> 24 == 127 : host == "::1"
        return onLoopback ? loopback.map { Int32(if_nametoindex($0)) } : nil
    }
}
