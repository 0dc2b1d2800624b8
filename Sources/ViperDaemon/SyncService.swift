import ServiceLifecycle
import ViperSettings

/// Runs the remote source until graceful shutdown, applying every snapshot through the sync Interactor.
struct SyncService: Service {
    let source: any RemoteSource
    let interactor: SyncInteractor
    let recorder: SyncStatusRecorder

    func run() async throws {
        let interactor = self.interactor
        let source = self.source
        let recorder = self.recorder
        await cancelWhenGracefulShutdown {
            await source.run(applying: { await interactor.apply($0) }, status: recorder)
        }
    }
}
