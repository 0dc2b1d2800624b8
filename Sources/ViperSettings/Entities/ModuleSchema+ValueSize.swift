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

extension ModuleSchema {
    /// Checks that every default fits the size limit of its item (``limitingValueSize(to:)``): a default that a set
    /// of the same value would refuse is an error of the schema, as any default its item does not take.
    public func checkDefaultSizes() throws(SchemaError) {
        for (sectionIndex, section) in self.sections.enumerated() {
            for (itemIndex, item) in section.items.enumerated() {
                let size: Int
                let limit: Int?
                switch (item.type, item.defaultValue) {
                case (.string(_, _, _, let maxSize), .string(let text)): (size, limit) = (text.utf8.count, maxSize)
                case (.strings(_, _, _, let maxSize), let value): (size, limit) = (value.byteSize, maxSize)
                default: continue
                }
                guard let limit, size > limit else { continue }
                throw SchemaError(
                    path: "$.sections[\(sectionIndex)].items[\(itemIndex)].default",
                    reason: """
                        default is \(size) bytes long, more than the limit of \(limit) bytes (max-value-size): a set \
                        of the same value would be refused
                        """
                )
            }
        }
    }
}
