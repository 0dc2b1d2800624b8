import SettingsAPI
public import ViperIPC
public import ViperSettings

/// `io.viper.settings.Apply` on the applier's own socket: `Status` for everyone, `DryRun` for root only (it runs
/// every target's check command as the applier).
public struct ApplyVarlinkInterface: VarlinkInterface {
    public let name = ApplyMethod.interface
    public let description = ApplyMethod.interfaceDescription
    public let methods = Set(ApplyMethod.allCases.map(\.rawValue))
    let interactor: ApplyInteractor

    public init(interactor: ApplyInteractor) {
        self.interactor = interactor
    }

    public func handle(_ call: VarlinkCall, peer: Caller, replies: any VarlinkReplySink) async throws {
        try call.refuseParameters(except: [])
        switch ApplyMethod(rawValue: call.methodName) {
        case .status:
            try await replies.reply(JSONValueEncoder().encode(await self.interactor.status()))
        case .dryRun:
            guard peer.uid == 0 else { throw VarlinkError.permissionDenied() }
            do {
                try await replies.reply(JSONValueEncoder().encode(try await self.interactor.dryRun()))
            } catch let error as ApplyError {
                throw VarlinkError(name: ApplyMethod.notReady, parameters: ["reason": .string(error.description)])
            }
        case nil:
            throw VarlinkError.methodNotFound(call.method)
        }
    }
}
