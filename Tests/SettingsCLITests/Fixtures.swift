import SettingsAPI

/// ViewModels as the daemon would send them, for the renderer and command tests.
enum Fixtures {
    static func item(
        _ key: String,
        title: String,
        value: JSONValue,
        display: String,
        layer: LayerName = .default,
        locked: Bool = false,
        constraint: String? = nil
    ) -> ItemViewModel {
        ItemViewModel(
            key: key,
            id: String(key.split(separator: ".").last ?? ""),
            title: title,
            summary: "",
            type: value.intValue != nil ? "int" : "string",
            value: value,
            display: display,
            layer: layer,
            modified: layer != .default,
            locked: locked,
            defaultValue: value,
            defaultDisplay: display,
            constraint: constraint
        )
    }

    static let mode = item(
        "network.proxy.mode",
        title: "Proxy mode",
        value: "manual",
        display: "manual",
        layer: .mandatory,
        locked: true
    )
    static let host = item("network.proxy.host", title: "Proxy host", value: "", display: "")
    static let port = item(
        "network.proxy.port",
        title: "Port",
        value: 8080,
        display: "8080",
        layer: .local,
        constraint: "1..65535"
    )
    static let servers = item("network.dns.servers", title: "DNS servers", value: ["9.9.9.9"], display: "9.9.9.9")

    static let network = ModuleViewModel(
        module: "network",
        title: "Network",
        description: "Proxy and name resolution for this host",
        revision: 7,
        sections: [
            SectionViewModel(id: "proxy", title: "Proxy", items: [mode, host, port]),
            SectionViewModel(id: "dns", title: "Name resolution", items: [servers]),
        ]
    )

    static let portExplained = ExplainViewModel(
        item: port,
        layers: [
            LayerValueViewModel(layer: .default, present: true, value: 3128, display: "3128", source: "schema"),
            LayerValueViewModel(layer: .recommended, present: false, value: nil, display: nil, source: "remote"),
            LayerValueViewModel(layer: .local, present: true, value: 8080, display: "8080", source: "this host"),
            LayerValueViewModel(layer: .mandatory, present: false, value: nil, display: nil, source: "remote"),
        ],
        winner: .local,
        revision: 7
    )
}
