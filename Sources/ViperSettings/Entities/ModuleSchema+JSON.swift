public import SettingsAPI

extension ModuleSchema {
    /// The longest id of a module, a section or an item, in characters (ids are ASCII: as many bytes). State files
    /// are named after the module, and the longest such name, a remote cache moved aside
    /// (`NAME.remote.json.corrupt-YYYYMMDDTHHMMSSZ`, with `-2`, `-3`… should that name be taken), is the id and 37
    /// bytes: 165 bytes and its suffix, far below the 255 a Linux file name may have.
    public static let maximumIDLength = 128

    /// Whether `text` is an id as a schema takes it: ASCII letters, digits, `-` and `_`, starting with a letter, at
    /// most `maximumLength` characters (``maximumIDLength`` unless said otherwise).
    public static func isIdentifier(_ text: some StringProtocol, maximumLength: Int = Self.maximumIDLength) -> Bool {
        let bytes = text.utf8
        guard let first = bytes.first, Self.isASCIILetter(first), bytes.count <= maximumLength else { return false }
        return bytes.allSatisfy {
            Self.isASCIILetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-")
                || $0 == UInt8(ascii: "_")
        }
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// The keys of a schema's top-level object.
    static let moduleKeys = ["description", "module", "sections", "title", "writers"]
    /// The keys of a section.
    static let sectionKeys = ["id", "items", "title"]

    /// Reads and checks a schema document. Throws a ``SchemaError`` naming the JSON path of the first problem:
    /// JSON of the wrong shape, an unknown key (at any level), a constraint the item's type does not take, a
    /// choice or a default the item could never store, a duplicate id.
    public init(json: JSONValue) throws(SchemaError) {
        let root = try SchemaField(json, "$").object()
        try root.rejectUnknownKeys(allowing: Self.moduleKeys, in: "a module")
        self.name = try root.member("module").identifier()
        self.title = try root.optionalMember("title")?.string() ?? self.name
        self.description = try root.optionalMember("description")?.string() ?? ""
        if let writers = try root.optionalMember("writers") {
            self.writers = try Writers(field: writers)
        } else {
            self.writers = Writers()
        }
        let sections = try root.member("sections").array()
        guard !sections.isEmpty else { throw SchemaError(path: "$.sections", reason: "a module needs a section") }
        var sectionIDs: Set<String> = []
        self.sections = []
        for section in sections {
            let object = try section.object()
            try object.rejectUnknownKeys(allowing: Self.sectionKeys, in: "a section")
            let id = try object.member("id").identifier()
            guard sectionIDs.insert(id).inserted else {
                throw SchemaError(path: "\(section.path).id", reason: "duplicate section id '\(id)'")
            }
            var itemIDs: Set<String> = []
            var items: [ItemSchema] = []
            for item in try object.member("items").array() {
                let parsed = try ItemSchema(field: item)
                guard itemIDs.insert(parsed.id).inserted else {
                    throw SchemaError(path: "\(item.path).id", reason: "duplicate item id '\(parsed.id)'")
                }
                items.append(parsed)
            }
            self.sections.append(
                SectionSchema(id: id, title: try object.optionalMember("title")?.string() ?? id, items: items)
            )
        }
        self.positions = ItemPositions(self.sections)
    }
}
