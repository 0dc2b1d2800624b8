import SettingsBench

SettingsBenchCommand.main()
