import SettingsCLI
import SettingsCLICore
import Testing

@Suite("SocketLocator")
struct SocketLocatorTests {
    static func locator(_ environment: [String: String], systemSocketExists: Bool) -> SocketLocator {
        SocketLocator(
            environment: { environment[$0] },
            fileExists: { $0 == SocketLocator.systemPath && systemSocketExists }
        )
    }

    @Test("--socket wins over everything")
    func option() {
        let locator = Self.locator(["VIPER_SETTINGS_SOCKET": "/env.sock"], systemSocketExists: true)
        #expect(locator.locate(option: "/flag.sock") == .init(path: "/flag.sock", origin: .option))
    }

    @Test("then VIPER_SETTINGS_SOCKET, when set and not empty")
    func environment() {
        let locator = Self.locator(["VIPER_SETTINGS_SOCKET": "/env.sock"], systemSocketExists: true)
        #expect(locator.locate(option: nil) == .init(path: "/env.sock", origin: .environment))
        let empty = Self.locator(["VIPER_SETTINGS_SOCKET": ""], systemSocketExists: true)
        #expect(empty.locate(option: nil).origin == .system)
    }

    @Test("then the system socket when it exists, even with XDG_RUNTIME_DIR set")
    func system() {
        let locator = Self.locator(["XDG_RUNTIME_DIR": "/run/user/1000"], systemSocketExists: true)
        #expect(locator.locate(option: nil) == .init(path: SocketLocator.systemPath, origin: .system))
    }

    @Test("then the per-user socket in XDG_RUNTIME_DIR")
    func runtimeDirectory() {
        let locator = Self.locator(["XDG_RUNTIME_DIR": "/run/user/1000"], systemSocketExists: false)
        #expect(
            locator.locate(option: nil)
                == .init(path: "/run/user/1000/viper-settings/io.viper.settings", origin: .runtimeDirectory)
        )
    }

    @Test("and the system path, to name in the error, when nothing else is there")
    func fallback() {
        let locator = Self.locator([:], systemSocketExists: false)
        #expect(locator.locate(option: nil) == .init(path: SocketLocator.systemPath, origin: .system))
    }
}
