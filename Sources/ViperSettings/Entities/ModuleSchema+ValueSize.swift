/// The daemon-wide limit on the size of a value (`max-value-size`), on top of what each schema declares.
extension ModuleSchema {
    /// The default daemon-wide limit: 64 KiB of UTF-8 per value.
    public static let defaultMaxValueSize = 64 * 1024

    /// The schema with every `string` and `strings` item limited to `bytes` bytes of UTF-8 (all texts of a list
    /// together); other types have a bounded size already. Sets, on each call, the limit that applies.
    public func limitingValueSize(to bytes: Int) -> ModuleSchema {
        var schema = self
        for section in schema.sections.indices {
            for item in schema.sections[section].items.indices {
                let type = schema.sections[section].items[item].type
                switch type {
                case .string(let choices, let pattern, let maxLength, _):
                    schema.sections[section].items[item].type = .string(
                        choices: choices,
                        pattern: pattern,
                        maxLength: maxLength,
                        maxSize: bytes
                    )
                case .strings(let maxItems, let maxLength, let pattern, _):
                    schema.sections[section].items[item].type = .strings(
                        maxItems: maxItems,
                        maxLength: maxLength,
                        pattern: pattern,
                        maxSize: bytes
                    )
                case .bool, .int, .double:
                    break
                }
            }
        }
        return schema
    }
}
