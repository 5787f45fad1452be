// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "tripto",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "tripto", targets: ["Appliance"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0")
    ],
    targets: [
        // The pure game: state machine, scoring, answer matching, projections, packs. Foundation only.
        .target(name: "Core"),
        .executableTarget(
            name: "Appliance",
            dependencies: [
                "Core",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "CoreTests", dependencies: ["Core"], resources: [.copy("Fixtures")]),
        .testTarget(name: "ApplianceTests", dependencies: ["Appliance", "Core"]),
    ]
)
