import SettingsCLI

SettingsCtl.main()
