import SettingsAPI

@testable import ViperApply

extension ApplyInteractor {
    /// Takes the events, then runs the pass they asked for, as ``ApplyPassService`` does next in the applier: for
    /// tests that look at the files right after.
    func receivedAndApplied(_ events: [WatchEventViewModel]) async {
        self.received(events)
        await self.applyDirtyWhenSettled()
    }
}
