// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "tripto",
    products: [
        .executable(name: "tripto", targets: ["Appliance"]),
        .executable(name: "tripto-console", targets: ["Console"]),
        .executable(name: "tripto-bench", targets: ["Bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
    ],
    targets: [
        // The pure game: state machine, scoring, answer matching, projections, packs. Foundation only.
        .target(name: "Core"),
        // libqrencode, for the join QR code.
        .systemLibrary(
            name: "CQREncode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        // avahi-client, for announcing and finding boxes by mDNS. Its headers are in the default
        // include path; its pkg-config flags (-D_REENTRANT) are ones SwiftPM refuses, so none are used.
        .systemLibrary(
            name: "CAvahi",
            providers: [.apt(["libavahi-client-dev"])]
        ),
        // alsa-lib, for the box's own sound output.
        .systemLibrary(
            name: "CALSA",
            pkgConfig: "alsa",
            providers: [.apt(["libasound2-dev"])]
        ),
        // The calls into Linux and the Swift runtime that Swift cannot make directly: open files
        // made room for before main, a short time slice, thread names, the runtime's executor hook,
        // and the TRIPTO_DISABLE switches that turn the optimisations off (docs/performance.md).
        .target(name: "CTriptoSystem"),
        // The join QR code (libqrencode), as SVG for pages and half blocks for terminals.
        .target(name: "QR", dependencies: ["CQREncode"]),
        // mDNS advertise + browse through avahi-daemon.
        .target(
            name: "Discovery",
            dependencies: ["CAvahi", .product(name: "Logging", package: "swift-log")]
        ),
        .executableTarget(
            name: "Appliance",
            dependencies: [
                "Core",
                "CALSA",
                "QR",
                "Discovery",
                "CTriptoSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            ],
            // The web pages for phones, the TV and the host: plain files, no build step.
            // The lists of names the box refuses (`NameFilter`).
            resources: [.copy("Web"), .copy("Names")],
            // Linked by the toolchain's lld, which takes a static Foundation's libraries in any order
            // (the default linker cannot link a debug build statically: `scripts/deb --configuration
            // debug`). Release builds also pack relative relocations (RELR: 23 KB instead of 2.8 MB
            // that the loader reads and applies at every start) and export no symbols: about 6 MB less
            // memory at idle (docs/performance.md, "Static release build linked by lld").
            linkerSettings: [
                .unsafeFlags(["-use-ld=lld"]),
                .unsafeFlags(
                    ["-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic"],
                    .when(configuration: .release)),
            ]
        ),
        // `tripto-console`: any role of a game in a terminal, over the same contract as every client.
        .executableTarget(
            name: "Console",
            dependencies: [
                "Core",
                "QR",
                "Discovery",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            // The toolchain's lld, which finds the static Foundation's libraries in any order: the
            // default linker cannot link a debug build statically (`scripts/deb --configuration debug`).
            linkerSettings: [.unsafeFlags(["-use-ld=lld"])]
        ),
        // The load benchmark (`make bench`): real WebSocket tables against `tripto serve` and a baseline.
        .executableTarget(
            name: "Bench",
            dependencies: [
                "Core",
                "CTriptoSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "CoreTests", dependencies: ["Core"], resources: [.copy("Fixtures")]),
        .testTarget(
            name: "ApplianceTests",
            dependencies: [
                // Bench only so that `swift test` builds tripto-bench for the benchmark's smoke test.
                "Appliance", "Bench", "Core", "CTriptoSystem",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "ConsoleTests", dependencies: ["Console", "Core", "QR"]),
    ]
)
