package import ArgumentParser
package import SettingsCLICore

/// `settingsctl set KEY VALUE`: sets a key on this host; the daemon reads the text by the key's type.
package struct SetCommand: SettingsCommand {
    package static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set a key on this host.",
        discussion: """
            The daemon reads VALUE by the key's type: 8080, true, 1.25, stable; a list of strings as \
            stable,beta or as a JSON array. Numbers are decimal (80, -1; a double also 1.25, 1e3; not 0x50); blanks around a \
            bool, a number or a word of a list are ignored, a string is taken as it is. Prints the value before \
            and after (on a terminal, a long value cut to half its width), or "unchanged" when the host already \
            had it (then nothing is written). A negative number \
            is a value (set KEY -1); put -- before any other value that begins with '-'.

            Examples:
              settingsctl set network.proxy.port 8080
              settingsctl set updates.policy.channels stable,beta
              settingsctl set display.output.scale 1.25
              settingsctl set KEY -- -VALUE
            """
    )

    @OptionGroup package var global: GlobalOptions

    @Argument(
        help: "The key, MODULE.SECTION.ITEM, e.g. network.proxy.port.",
        completion: .daemon(.key)
    )
    package var key: String

    @Argument(
        help: "The new value, as text.",
        completion: .daemon(.value)
    )
    package var value: String

    package init() {}

    /// What the command does.
    package var action: CommandAction {
        .set(key: self.key, value: self.value)
    }
}
