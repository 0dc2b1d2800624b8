import SettingsAPI
import ViperSettings

/// The remote cache file of a module, `NAME.remote.json`, pretty-printed for people:
///
/// ```json
/// {
///   "format": 1,
///   "module": "network",
///   "revision": 12,
///   "remoteRevision": "r42",
///   "recommended": {
///     "proxy.mode": "auto"
///   },
///   "mandatory": {
///     "proxy.port": 8080
///   }
/// }
/// ```
///
/// It holds the remote layers last stored by `updateRemote`, so that they survive a restart without network, and
/// the revision that update set, and the remote source's revision of these layers (`remoteRevision`, absent when
/// unknown), so that `status` and `explain` name it after a restart. The module's revision after loading is the greater of this one and the one of the
/// snapshot and journal: revisions never decrease, so the greater is the one of the latest change.
struct RemoteLayers {
    /// The revision set by the remote update that wrote the file.
    var revision: Int64
    /// The remote source's revision of the layers, when known.
    var remoteRevision: String?
    /// The recommended layer.
    var recommended: [String: SettingValue]
    /// The mandatory layer.
    var mandatory: [String: SettingValue]
    /// Keys whose stored value is not a valid setting value, skipped, as `LAYER: KEY`.
    var skippedKeys: [String] = []

    /// The file's bytes for the remote layers and revision of `state`.
    static func encode(module: String, state: ModuleState) -> [UInt8] {
        StateFileDocument.encode(
            module: module,
            revision: state.revision,
            strings: state.remoteRevision.map { [("remoteRevision", $0)] } ?? [],
            members: [("recommended", state.recommended), ("mandatory", state.mandatory)]
        )
    }

    /// Reads the remote file of `module`; throws a ``StateFileError`` for text that is not JSON or has the wrong
    /// shape.
    init(decoding bytes: [UInt8], module: String) throws(StateFileError) {
        let document = try StateFileDocument(decoding: bytes, module: module, kind: "remote file")
        let recommended = try document.values(of: "recommended")
        let mandatory = try document.values(of: "mandatory")
        self.revision = document.revision
        self.remoteRevision = document.json["remoteRevision"]?.stringValue
        self.recommended = recommended.values
        self.mandatory = mandatory.values
        self.skippedKeys =
            (recommended.skipped.map { "recommended: \($0)" } + mandatory.skipped.map { "mandatory: \($0)" })
            .sorted()
    }
}
