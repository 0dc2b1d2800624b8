import SettingsCLICore

extension FastPathParser {
    /// The command `arguments` (without the program name) stand for, or `nil` to leave them to ArgumentParser.
    package static func command(_ arguments: [String]) -> (any SettingsCommand)? {
        guard let invocation = Self.invocation(arguments) else { return nil }
        var global = GlobalOptions()
        global.json = invocation.json
        global.socket = invocation.socket
        switch invocation.action {
        case .modules:
            var command = ModulesCommand()
            command.global = global
            return command
        case .show(let module):
            var command = ShowCommand()
            command.global = global
            command.module = module
            return command
        case .get(let key):
            var command = GetCommand()
            command.global = global
            command.key = key
            return command
        case .set(let key, let value):
            var command = SetCommand()
            command.global = global
            command.key = key
            command.value = value
            return command
        case .reset(let target):
            var command = ResetCommand()
            command.global = global
            command.target = target
            return command
        case .explain(let key):
            var command = ExplainCommand()
            command.global = global
            command.key = key
            return command
        case .status:
            var command = StatusCommand()
            command.global = global
            return command
        case .sync:
            var command = SyncCommand()
            command.global = global
            return command
        case .dump, .load, .diff:
            // FastPathParser leaves these to ArgumentParser: their options are not on the fast path.
            return nil
        }
    }
}
