// swift-tools-version:5.3
// The iOS half of the voice-audio plugin, built by the Tauri CLI into the app.

import PackageDescription

let package = Package(
    name: "tauri-plugin-voice-audio",
    platforms: [
        .iOS(.v13),
    ],
    products: [
        .library(
            name: "tauri-plugin-voice-audio",
            type: .static,
            targets: ["tauri-plugin-voice-audio"]),
    ],
    dependencies: [
        .package(name: "Tauri", path: "../.tauri/tauri-api")
    ],
    targets: [
        .target(
            name: "tauri-plugin-voice-audio",
            dependencies: [
                .byName(name: "Tauri")
            ],
            path: "Sources")
    ]
)
