/// A failure of the etcd test harness itself.
struct EtcdTestFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
