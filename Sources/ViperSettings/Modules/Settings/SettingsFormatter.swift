public import SettingsAPI

/// The words the Settings Presenter puts on entities and failures: values as people read them, constraints,
/// where a layer's value comes from, and the reasons of the declared errors.
public enum SettingsFormatter {
    /// The value as people read it, never blank: `3128`, `true`, `1.25`, `manual`, `stable, beta`; an empty string
    /// is `""`, an empty list `[]`, and a list that words separated by commas cannot show (an empty element, a
    /// comma or spaces at the ends of an element) is its JSON array, `["a,b", ""]`: what `set` reads back.
    ///
    /// Text in double quotes is always JSON: a string that begins and ends with `"` (`""` itself, `"a"`) is shown
    /// as its JSON string, `"\"\""`, and a list with such an element as its JSON array, so that neither is taken
    /// for the empty string; so is a string with blanks at an end (`"   "`, `" x "`), which would read as less. A
    /// value that would read `(none)`, the words that stand for no value where one may be missing (a layer without
    /// one, a key a change adds), is its JSON too: `"(none)"`, `["(none)"]`.
    public static func display(_ value: SettingValue) -> String {
        let text = Self.words(value)
        return text == ItemViewModel.noValueText ? value.json.serialized() : text
    }

    private static func words(_ value: SettingValue) -> String {
        switch value {
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .double(let value): return value.description
        case .string(let value):
            if value.isEmpty { return "\"\"" }
            // Blanks at an end are invisible in a line of words (all blanks would read as nothing): its JSON.
            let blankEnd =
                value.unicodeScalars.first!.properties.isWhitespace
                || value.unicodeScalars.last!.properties.isWhitespace
            return Self.looksQuoted(value) || blankEnd ? JSONValue.string(value).serialized() : value
        case .strings(let values):
            if values.isEmpty { return "[]" }
            let plain = values.allSatisfy { element in
                !element.isEmpty && !element.contains(",") && element.first?.isWhitespace != true
                    && element.last?.isWhitespace != true && !(element.first == "[") && !Self.looksQuoted(element)
            }
            let words = values.joined(separator: ", ")
            // Words only when `set` reads them back as this list (it refuses a word in quotes, GVariant text).
            guard plain, (try? SettingType.strings().value(fromText: words)) == value else {
                return value.json.serialized()
            }
            return words
        }
    }

    /// Whether `text` begins and ends with a double quote, as the display of a string in JSON does.
    private static func looksQuoted(_ text: String) -> Bool {
        text.unicodeScalars.count >= 2 && text.unicodeScalars.first == "\"" && text.unicodeScalars.last == "\""
    }

    /// The constraint in words, e.g. "1..65535" or "one of none, manual, auto"; `nil` when there is none.
    public static func constraint(_ type: SettingType) -> String? {
        switch type {
        case .bool: return "true or false"
        case .int(let range?): return "\(range.lowerBound)..\(range.upperBound)"
        case .double(let range?): return "\(range.lowerBound)..\(range.upperBound)"
        case .int(nil): return "a whole number"
        case .double(nil): return "a number"
        case .string(let choices, let pattern, let maxLength, _):
            var parts: [String] = []
            if let choices { parts.append("one of \(SettingType.listed(choices: choices))") }
            if let pattern { parts.append("matching \(pattern)") }
            if let maxLength { parts.append("at most \(maxLength) characters") }
            return parts.isEmpty ? nil : parts.joined(separator: ", ")
        case .strings(let maxItems, let maxLength, let pattern, _):
            var text = "a list of strings"
            if let maxItems { text += ", at most \(maxItems) items" }
            if let maxLength { text += ", each at most \(maxLength) characters" }
            if let pattern { text += ", each matching \(pattern)" }
            return text
        }
    }

    /// Where the value of `layer` comes from, for `explain`; a mandatory layer locks the key only when it holds a
    /// value (`present`).
    public static func source(of layer: Layer, module: String, present: Bool = true) -> String {
        switch layer {
        case .default: "schema \(module).json"
        case .recommended: "remote (recommended)"
        case .local: "set on this host"
        case .mandatory: present ? "remote (mandatory, locked)" : "remote (mandatory, would lock)"
        }
    }

    /// `reason` with the key it is about in place of the placeholder `KEY` of a hint (`settingsctl explain KEY
    /// shows it`): the type that refused the value does not know the key.
    static func naming(_ key: String, in reason: String) -> String {
        reason.replacing("settingsctl explain KEY", with: "settingsctl explain \(key)")
    }

    /// The declared error for `failure`, its reasons in words.
    public static func error(_ failure: SettingsFailure) -> SettingsErrorViewModel {
        switch failure {
        case .noSuchModule(let module): return .noSuchModule(module: module)
        case .noSuchKey(let key): return .noSuchKey(key: key)
        case .invalidValue(let key, let value, let reason):
            return .invalidValue(key: key, value: value, reason: Self.naming(key, in: reason))
        case .keyLocked(let key, let layer): return .keyLocked(key: key, source: Self.lockSource(layer))
        case .permissionDenied(let module, let uid, let writers):
            return .permissionDenied(module: module, uid: Int64(uid), reason: Self.mayWrite(writers))
        case .storageFailure(let module, let reason): return .storageFailure(module: module, reason: reason)
        case .revisionMismatch(let module, let expected, let actual):
            return .revisionMismatch(module: module, expected: expected, actual: actual)
        case .loadRefused(let problems): return .loadRefused(problems: problems.map(Self.problem))
        case .syncUnavailable(let reason): return .syncUnavailable(reason: reason)
        case .syncInterrupted(let why, let source):
            return .syncInterrupted(reason: Self.interruption(why, source: source))
        case .syncDenied(let uid):
            return .permissionDenied(
                module: "*",
                uid: Int64(uid),
                reason: "only root and the writers of a module (writers in its schema) may start a sync"
            )
        }
    }

    /// A value a load cannot apply, in words.
    public static func problem(_ problem: LoadProblem) -> LoadProblemViewModel {
        switch problem {
        case .noSuchModule(let module, let meant):
            let hint = meant.map { "; did you mean '\($0)'?" } ?? ""
            return LoadProblemViewModel(key: module, problem: .noSuchModule, reason: "no such module" + hint)
        case .noSuchKey(let key, let section, let meant):
            let module = key.prefix { $0 != "." }
            var reason = "the schema of \(module) has no such key"
            if section {
                let name = key.dropFirst(module.count + 1)
                reason += "; '\(name)' is a section: name each of its keys in full (\"\(name).ITEM\": value)"
            } else if let meant {
                reason += "; did you mean '\(meant)'?"
            }
            return LoadProblemViewModel(key: key, problem: .noSuchKey, reason: reason)
        case .invalidValue(let key, let value, let reason):
            return LoadProblemViewModel(
                key: key,
                problem: .invalidValue,
                reason: "\(Self.cut(value)): \(Self.naming(key, in: reason))"
            )
        case .keyLocked(let key, let layer):
            return LoadProblemViewModel(key: key, problem: .keyLocked, reason: "locked by \(Self.lockSource(layer))")
        case .permissionDenied(let module, let uid, let writers):
            return LoadProblemViewModel(
                key: module,
                problem: .permissionDenied,
                reason: "permission denied for uid \(uid): \(Self.mayWrite(writers))"
            )
        }
    }

    /// Who may write a module of `writers`: "only root, users alice, members of netadmin may write it".
    static func mayWrite(_ writers: Writers) -> String {
        var allowed = ["root"]
        if !writers.users.isEmpty { allowed.append("users \(writers.users.joined(separator: ", "))") }
        if !writers.groups.isEmpty { allowed.append("members of \(writers.groups.joined(separator: ", "))") }
        return "only \(allowed.joined(separator: ", ")) may write it"
    }

    /// The most characters of a value a reason repeats: a value refused for its size is not repeated whole.
    static let repeatedValueLength = 200

    /// `text` as a reason repeats it: whole when short, else its start and its size.
    static func cut(_ text: String) -> String {
        guard text.count > Self.repeatedValueLength else { return text }
        return "\(text.prefix(Self.repeatedValueLength))… (\(text.utf8.count) bytes)"
    }

    /// Why a sync did not finish, in words: the reason of `SyncInterrupted`.
    static func interruption(_ why: SyncInterruption, source: String) -> String {
        switch why {
        case .sourceStopped: "the daemon is stopping (the fetch from \(source) was cut short or never started)"
        case .cancelled: "the call was cancelled (the fetch from \(source) was left unfinished)"
        }
    }

    /// What locks a key held by `layer`.
    static func lockSource(_ layer: Layer) -> String {
        layer == .mandatory ? "fleet policy (mandatory layer of the remote source)" : "the \(layer) layer"
    }
}
