/// Directories named by environment variables, as systemd and the XDG base directory specification set them.
public enum EnvironmentDirectory {
    /// The first directory `variable` names in `environment`: systemd joins several with `:`
    /// (`$STATE_DIRECTORY`, `$RUNTIME_DIRECTORY`, `$CONFIGURATION_DIRECTORY` of a unit with more than one
    /// `StateDirectory=`…); `nil` when the variable is unset, empty or names only empty directories, which count as
    /// unset.
    public static func first(_ variable: String, in environment: [String: String]) -> String? {
        environment[variable]?.split(separator: ":", omittingEmptySubsequences: true).first.map(String.init)
    }

    /// The directory `variable` names, whole (the XDG variables name one directory); `nil` when it is unset or
    /// empty, which counts as unset.
    public static func single(_ variable: String, in environment: [String: String]) -> String? {
        guard let value = environment[variable], !value.isEmpty else { return nil }
        return value
    }
}
