import NIOSSL

/// Reads the certificate authorities an HTTPS source trusts (`remote-ca-file`): a PEM file of one or more
/// `-----BEGIN CERTIFICATE-----` blocks, read at each attempt so that a renewed file is taken without a restart.
enum HTTPCAFile {
    /// The largest CA file read (a whole system bundle is some 200 KiB).
    static let maximumSize = 4 << 20

    /// The certificates in the file. Never waits on a FIFO or a device; every error names the file, the
    /// `remote-ca-file` key and the reason in words rather than a TLS library's code.
    static func load(_ path: String) throws(RemoteSyncError) -> [NIOSSLCertificate] {
        let named = "the CA file \(path) (remote-ca-file)"
        let bytes = try HTTPCredentialFile.read(path, named: named, limit: Self.maximumSize)
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMBytes(bytes)
        } catch {
            let marker = Array("-----BEGIN CERTIFICATE-----".utf8)
            let hasMarker = bytes.indices.contains { bytes[$0...].starts(with: marker) }
            throw RemoteSyncError.configuration(
                hasMarker
                    ? "\(named) holds a certificate that does not parse (a damaged PEM block)"
                    : "\(named) is not a PEM file of certificates (it has no -----BEGIN CERTIFICATE----- line)"
            )
        }
        return certificates
    }
}
