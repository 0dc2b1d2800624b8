import SettingsCLICore

SettingsCtlLauncher.main()
