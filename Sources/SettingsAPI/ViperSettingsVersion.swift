/// The version of viper-settings, reported by `--version` of both programs and by Varlink `GetInfo`.
public enum ViperSettingsVersion {
    public static let current = "0.1.0"
}
