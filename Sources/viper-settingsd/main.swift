import ViperDaemon

await DaemonCommand.start()
