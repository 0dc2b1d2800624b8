extension JSONValue {
    /// The value as compact JSON text, the way it was most likely written, for a message that repeats it: a string
    /// in quotes (`"80"`, told from the number `80`), and a whole number beyond 64 bits, which the reader holds as a
    /// double, in plain digits below 10^21 (`9223372036854775808`, not `9.223372036854776e+18`). A double has some 16
    /// significant digits: `9223372036854775809` was read as `9223372036854775808`, and is shown so.
    public var givenText: String {
        if case .double(let value) = self, value.rounded() == value, abs(value) >= 0x1p63, abs(value) < 1e21 {
            let digits = UInt128(abs(value)).description
            return value < 0 ? "-" + digits : digits
        }
        return self.serialized()
    }
}
