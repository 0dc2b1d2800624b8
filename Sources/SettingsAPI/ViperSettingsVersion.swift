/// The version of viper-settings: `--version` of every program prints it after the program's name (`viper-settingsd
/// 0.1.0`, the common form on Linux), Varlink `GetInfo` and `Status` report it alone.
public enum ViperSettingsVersion {
    public static let current = "0.1.0"
}
