import SettingsAPI

/// Writes a result for people (a short table) or for scripts (one JSON object).
public enum BenchReport {
    /// A few aligned lines: the workload, ops/s, then one line of latency percentiles per operation.
    public static func text(_ result: BenchResult) -> String {
        let workload = result.workload
        var lines = [
            "\(workload.wire.rawValue) \(workload.socketPath): \(workload.connections) connection(s), "
                + "\(workload.setPercent)% sets, \(workload.keys.count) key(s), "
                + "\(Self.fixed(result.seconds, 2)) s recorded",
            "ops/s \(Self.fixed(result.operationsPerSecond, 0))",
            Self.pad("op", 6) + Self.pad("count", 10) + Self.pad("errors", 8)
                + ["p50", "p90", "p99", "p99.9", "max"].map { Self.pad("\($0) us", 11) }.joined(),
        ]
        for operation in BenchOperation.allCases {
            guard let figures = result.operations[operation] else { continue }
            lines.append(
                Self.pad(operation.rawValue, 6) + Self.pad("\(figures.count)", 10) + Self.pad("\(figures.errors)", 8)
                    + [figures.p50, figures.p90, figures.p99, figures.p999, figures.max]
                    .map { Self.pad(Self.fixed($0, 1), 11) }.joined()
            )
        }
        return lines.joined(separator: "\n")
    }

    /// One JSON object: `protocol`, `socket`, `connections`, `setPercent`, `keys`, `seconds`, `opsPerSecond`,
    /// `errors`, and per operation (`get`, `set`, `all`) `count`, `errors` and `p50Us` ... `maxUs`, `meanUs`.
    public static func json(_ result: BenchResult) -> String {
        let workload = result.workload
        var members: [String: JSONValue] = [
            "protocol": .string(workload.wire.rawValue),
            "socket": .string(workload.socketPath),
            "connections": .int(Int64(workload.connections)),
            "setPercent": .int(Int64(workload.setPercent)),
            "keys": .int(Int64(workload.keys.count)),
            "seconds": .double(Self.rounded(result.seconds, 3)),
            "opsPerSecond": .double(Self.rounded(result.operationsPerSecond, 1)),
            "errors": .int(Int64(result.total.errors)),
            "all": Self.json(result.total),
        ]
        for operation in BenchOperation.allCases {
            guard let figures = result.operations[operation] else { continue }
            members[operation.rawValue] = Self.json(figures)
        }
        return JSONValue.object(members).serialized()
    }

    private static func json(_ figures: BenchResult.Figures) -> JSONValue {
        .object([
            "count": .int(Int64(figures.count)), "errors": .int(Int64(figures.errors)),
            "p50Us": .double(Self.rounded(figures.p50, 1)), "p90Us": .double(Self.rounded(figures.p90, 1)),
            "p99Us": .double(Self.rounded(figures.p99, 1)), "p999Us": .double(Self.rounded(figures.p999, 1)),
            "maxUs": .double(Self.rounded(figures.max, 1)), "meanUs": .double(Self.rounded(figures.mean, 1)),
        ])
    }

    private static func rounded(_ value: Double, _ places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (value * scale).rounded() / scale
    }

    /// `value` with `places` decimals, without Foundation.
    static func fixed(_ value: Double, _ places: Int) -> String {
        guard value.isFinite else { return "0" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let whole = Int(scaled / scale)
        let fraction = Int(scaled - Double(whole) * scale)
        let sign = value < 0 && scaled != 0 ? "-" : ""
        guard places > 0 else { return sign + String(whole) }
        let digits = String(fraction)
        return sign + String(whole) + "." + String(repeating: "0", count: places - digits.count) + digits
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
