package import SettingsAPI

/// The lines `settingsctl watch` prints for people: one per current value, one when changes follow, one per change.
package enum WatchEventRenderer {
    /// The line for `event`, without a newline; `nil` for nothing to print.
    ///
    /// ```
    /// network.proxy.port = 3128 (default)
    /// -- watching for changes (cursor 5f3a9c01/network:7)
    /// network.proxy.port: 3128 -> 8080 (local; uid 1000, pid 4242; revision 8) [cursor 5f3a9c01/network:8]
    /// -- resync: the watcher read too slowly and changes were dropped; sending the current values
    /// ```
    package static func render(_ event: WatchEventViewModel, style: TextStyle) -> String? {
        // Keys, values, cursors and reasons come from the daemon (values from whoever set them): escaped.
        let key = style.strong(TableFormatter.printable(event.key ?? "?"))
        let cursor = TableFormatter.printable(event.cursor)
        switch event.event {
        case .current:
            // On a terminal, long values are cut short (…); a pipe or --json gets them whole.
            let value = TableFormatter.lineValue(
                AbsentValue.shown(event.display, value: event.value),
                columns: style.columns
            )
            return "\(key) = \(value) (\(event.layer?.rawValue ?? "?"))"
        case .ready:
            return style.faint("-- watching for changes (cursor \(cursor))")
        case .change:
            var who: [String] = [event.layer.map { "\($0.rawValue)" } ?? "removed"]
            switch event.cause {
            case "client":
                who.append("uid \(event.uid.map(String.init) ?? "?"), pid \(event.pid.map(String.init) ?? "?")")
            case "remote":
                who.append("remote" + (event.remoteRevision.map { " revision \(TableFormatter.printable($0))" } ?? ""))
            case "schema": who.append("schema change")
            default: break
            }
            if let revision = event.revision { who.append("revision \(revision)") }
            // No old value (a key added), no new one (a key removed): the marker no value is shown as.
            var old = AbsentValue.shown(event.oldDisplay, value: event.old)
            var new = AbsentValue.shown(event.display, value: event.value)
            // Two values that read the same (a schema change of the key's type: true to "true"): both as JSON.
            if old == new, let oldValue = event.old, let newValue = event.value, oldValue != newValue {
                (old, new) = (oldValue.serialized(), newValue.serialized())
            }
            (old, new) = (
                TableFormatter.lineValue(old, columns: style.columns),
                TableFormatter.lineValue(new, columns: style.columns)
            )
            return "\(key): \(old) -> \(new) (\(who.joined(separator: "; "))) " + style.faint("[cursor \(cursor)]")
        case .resync:
            return style.faint("-- resync: \(TableFormatter.printable(event.reason ?? "the stream starts over"))")
        }
    }
}
