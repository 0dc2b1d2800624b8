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
    /// `errors`, and per operation (`get`, `set`, `all`) `count`, `errors` and `p50Us` ... `maxUs`.
    public static func json(_ result: BenchResult) -> String {
        let workload = result.workload
        var members = [
            "\"protocol\":\"\(workload.wire.rawValue)\"",
            "\"socket\":\(Self.quoted(workload.socketPath))",
            "\"connections\":\(workload.connections)",
            "\"setPercent\":\(workload.setPercent)",
            "\"keys\":\(workload.keys.count)",
            "\"seconds\":\(Self.fixed(result.seconds, 3))",
            "\"opsPerSecond\":\(Self.fixed(result.operationsPerSecond, 1))",
            "\"errors\":\(result.total.errors)",
        ]
        for operation in BenchOperation.allCases {
            guard let figures = result.operations[operation] else { continue }
            members.append("\"\(operation.rawValue)\":\(Self.json(figures))")
        }
        members.append("\"all\":\(Self.json(result.total))")
        return "{" + members.joined(separator: ",") + "}"
    }

    private static func json(_ figures: BenchResult.Figures) -> String {
        let latencies = [
            ("p50Us", figures.p50), ("p90Us", figures.p90), ("p99Us", figures.p99), ("p999Us", figures.p999),
            ("maxUs", figures.max), ("meanUs", figures.mean),
        ]
        return "{\"count\":\(figures.count),\"errors\":\(figures.errors),"
            + latencies.map { "\"\($0.0)\":\(Self.fixed($0.1, 1))" }.joined(separator: ",") + "}"
    }

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case let control where control.value < 0x20: out += "\\u" + Self.hex4(control.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
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
