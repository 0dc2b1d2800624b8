import SettingsAPI
public import ViperSettings

/// `io.viper.settings` over Varlink: checks a call's parameters, turns it into a ``SettingsRequest`` for the
/// Router and sends back the ViewModel, or the declared error.
public struct SettingsVarlinkInterface: VarlinkInterface {
    private let router: SettingsRouter
    private let watchReplies = WatchReplyCache()
    private let valueReplies = ValueReplyCache()
    private let itemTexts = ItemTextCache()

    /// Creates the interface on top of the module router.
    public init(router: SettingsRouter) {
        self.router = router
    }

    public var name: String { SettingsMethod.interface }

    public var description: String { SettingsMethod.interfaceDescription }

    public var methods: Set<String> { Self.methodNames }

    /// The method names, built once: the server checks every call against them.
    private static let methodNames = Set(SettingsMethod.allCases.map(\.rawValue))

    public func handle(_ call: VarlinkCall, peer: Caller, replies: any VarlinkReplySink) async throws {
        // Two functions kept apart: a watch stays suspended for as long as its client watches, so its async frames
        // are held per watcher; the locals of the other calls are not among them.
        if call.methodName == SettingsMethod.watch.rawValue {
            try await self.watch(call, replies: replies)
        } else {
            try await self.answer(call, peer: peer, replies: replies)
        }
    }

    /// Answers every call but `Watch`.
    @inline(never)
    private func answer(_ call: VarlinkCall, peer: Caller, replies: any VarlinkReplySink) async throws {
        let request = try Self.request(for: call)
        let view = VarlinkSettingsView()
        await self.router.handle(request, caller: peer, view: view)
        switch view.outcome {
        case .success(let viewModel):
            switch viewModel as? SettingsViewModel {
            case .value(let value):
                try await replies.reply(encodedParameters: self.valueText(value))
                return
            case .set(let result):
                let text = Self.text(capacity: 1024) { out in
                    result.writeJSONText(into: &out, item: self.itemTexts.write(_:into:))
                }
                try await replies.reply(encodedParameters: text)
                return
            default: break
            }
            let (text, isObject) = try JSONValueEncoder().encodeText(viewModel)
            guard isObject else { throw VarlinkServerError.replyParametersNotAnObject }
            try await replies.reply(encodedParameters: text)
        case .failure(let failure):
            throw VarlinkError(name: failure.errorName, parameters: failure.parameters)
        case nil:
            throw VarlinkError.methodNotImplemented(call.method)
        }
    }

    /// A `Get` of a key whose module is loaded, answered from its current state (the same ViewModel and bytes the
    /// Router and the reply cache give in ``handle(_:peer:replies:)``); `nil` for anything else.
    public func replyNow(to call: VarlinkCall) -> [UInt8]? {
        guard call.methodName == SettingsMethod.get.rawValue, call.parameters.count == 1,
            let key = call.parameters["key"]?.stringValue, let value = self.router.valueNow(key: key)
        else { return nil }
        return self.valueText(value)
    }

    /// Grows whenever a `Get` may be answered differently: the Router's ``SettingsRouter/valueGeneration``.
    public var replyNowGeneration: UInt64? { self.router.valueGeneration }

    /// The encoded parameters of a value reply (`Get`), from the cache while the value is unchanged.
    private func valueText(_ value: ValueViewModel) -> [UInt8] {
        self.valueReplies.text(for: value) {
            Self.text(capacity: 512) { out in value.writeJSONText(into: &out, item: self.itemTexts.write(_:into:)) }
        }
    }

    /// The text `write` appends to an empty buffer of `capacity` bytes: a reply ViewModel written straight to text.
    private static func text(capacity: Int, _ write: (inout [UInt8]) -> Void) -> [UInt8] {
        var text: [UInt8] = []
        text.reserveCapacity(capacity)
        write(&text)
        return text
    }

    /// Streams `Watch` replies, with `continues`, until the client goes away or the call is cancelled; an unknown
    /// key or module is the declared error.
    @inline(never)
    private func watch(_ call: VarlinkCall, replies: any VarlinkReplySink) async throws {
        guard call.more else { throw VarlinkError.expectedMore() }
        try call.refuseParameters(except: SettingsMethod.watch.parameterNames)
        var targets: [String] = []
        if let keys = call.parameters["keys"], keys != .null {
            guard let list = keys.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw VarlinkError.invalidParameter("keys")
            }
            targets = list.compactMap(\.stringValue)
        }
        var cursor: WatchCursor?
        if let after = call.parameters["after"], after != .null {
            guard let text = after.stringValue, let parsed = WatchCursor(text) else {
                throw VarlinkError.invalidParameter("after")
            }
            cursor = parsed
        }
        let view = VarlinkWatchView(replies: replies, cache: self.watchReplies)
        await self.router.watch(targets: targets, after: cursor, view: view)
        if let failure = view.failure {
            throw VarlinkError(name: failure.errorName, parameters: failure.parameters)
        }
    }

    /// Reads a call into a request; a missing or mistyped parameter is `InvalidParameter` naming it.
    static func request(for call: VarlinkCall) throws(VarlinkError) -> SettingsRequest {
        guard let known = SettingsMethod(rawValue: call.methodName) else { throw .methodNotFound(call.method) }
        let parameters = call.parameters
        try call.refuseParameters(except: known.parameterNames)
        func string(_ name: String) throws(VarlinkError) -> String {
            guard let value = parameters[name]?.stringValue else { throw .invalidParameter(name) }
            return value
        }
        switch known {
        case .watch: throw .expectedMore()
        case .listModules: return .listModules
        case .status: return .status
        case .sync: return .sync
        case .showModule: return .showModule(try string("module"))
        case .get: return .get(key: try string("key"))
        case .explain: return .explain(key: try string("key"))
        case .reset: return .reset(target: try string("key"))
        case .dump:
            return .dump(
                modules: try Self.optional(parameters["modules"], "modules") { json -> [String]? in
                    guard let list = json.arrayValue else { return nil }
                    let names = list.compactMap(\.stringValue)
                    return names.count == list.count ? names : nil
                } ?? [],
                effective: try Self.optional(parameters["effective"], "effective") { $0.boolValue } ?? false
            )
        case .load:
            return try Self.load(parameters)
        case .set:
            let key = try string("key")
            // Absent or null alike, as for every optional parameter (JSONValue is nil-literal-expressible: a plain
            // `nil` here would be JSON null, not absence).
            let value: JSONValue? = parameters["value"] == .null ? .none : parameters["value"]
            let text: JSONValue? = parameters["text"] == .null ? .none : parameters["text"]
            switch (value, text) {
            case (let value?, nil): return .set(key: key, input: .json(value))
            case (nil, let text?):
                guard let text = text.stringValue else { throw .invalidParameter("text") }
                return .set(key: key, input: .text(text))
            case (nil, nil): throw .invalidParameter("value")
            case (_?, _?): throw .invalidParameter("text")
            }
        }
    }

    /// The parameter `name`, read by `read`; `nil` when absent or null, `InvalidParameter` when `read` fails.
    private static func optional<Value>(
        _ json: JSONValue?,
        _ name: String,
        _ read: (JSONValue) -> Value?
    ) throws(VarlinkError) -> Value? {
        guard let json, json != .null else { return nil }
        guard let value = read(json) else { throw .invalidParameter(name) }
        return value
    }

    /// Reads the parameters of `Load`: `modules` maps each module to an object whose `values` maps keys within the
    /// module to values (other fields, such as a dump's `revision`, are ignored); `ifRevision` names modules of it.
    private static func load(_ parameters: [String: JSONValue]) throws(VarlinkError) -> SettingsRequest {
        guard let modules = parameters["modules"]?.objectValue else { throw .invalidParameter("modules") }
        var values: [String: [String: JSONValue]] = [:]
        for (module, entry) in modules {
            guard let entry = entry.objectValue, let moduleValues = entry["values"]?.objectValue else {
                throw .invalidParameter("modules")
            }
            values[module] = moduleValues
        }
        let ifRevision = try Self.optional(parameters["ifRevision"], "ifRevision") { json -> [String: Int64]? in
            guard let object = json.objectValue else { return nil }
            var revisions: [String: Int64] = [:]
            for (module, revision) in object {
                guard values[module] != nil, let revision = revision.intValue else { return nil }
                revisions[module] = revision
            }
            return revisions
        }
        return .load(
            values: values,
            replace: try Self.optional(parameters["replace"], "replace") { $0.boolValue } ?? false,
            ifRevision: ifRevision ?? [:],
            dryRun: try Self.optional(parameters["dryRun"], "dryRun") { $0.boolValue } ?? false
        )
    }
}
