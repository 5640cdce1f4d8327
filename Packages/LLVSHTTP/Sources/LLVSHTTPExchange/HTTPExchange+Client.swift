import AsyncHTTPClient
import Foundation
import LLVSCore
import LLVSSupport
import NIOSSL

extension HTTPExchange {
    /// The HTTP client exchanges use unless given another: AsyncHTTPClient's singleton
    /// configuration, except that a connection that cannot be made fails its request at once
    /// (within a 10 s connect timeout) instead of being retried by the connection pool until
    /// the request's timeout. ``HTTPRetryPolicy`` retries with its own backoff, so a server
    /// that is down or a wrong port is reported within seconds, not minutes. It lives as long
    /// as the process and is never shut down.
    public static let defaultHTTPClient: HTTPClient = {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(10)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()
}

extension HTTPExchange {
    /// An HTTP client like ``defaultHTTPClient`` that also trusts the certificates in a PEM
    /// file: a private certificate authority, or a server's self-signed certificate (for a
    /// test server, or an `llvs-server --tls-certificate` without a public CA). The system's
    /// trusted roots stay trusted. Shut the client down (`shutdown()`) when done with it.
    ///
    /// - Parameter pemFile: The PEM file of one or more certificates to trust.
    /// - Throws: ``HTTPExchangeError/unusableCertificates(path:reason:)`` when the file
    ///   cannot be read or holds no certificate.
    public static func makeHTTPClient(trustingCertificatesIn pemFile: URL) throws -> HTTPClient {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(pemFile.path)
        } catch {
            throw HTTPExchangeError.unusableCertificates(path: pemFile.path, reason: "\(error)")
        }
        guard !certificates.isEmpty else {
            throw HTTPExchangeError.unusableCertificates(path: pemFile.path, reason: "it holds no certificate")
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.additionalTrustRoots = [.certificates(certificates)]
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(10)
        configuration.tlsConfiguration = tls
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// Like ``makeHTTPClient(trustingCertificatesIn:)``, but made once per file and kept for
    /// the life of the process (never shut down), like ``defaultHTTPClient``: for tools that
    /// make exchanges without managing a client's lifetime.
    ///
    /// - Throws: ``HTTPExchangeError/unusableCertificates(path:reason:)``.
    public static func sharedHTTPClient(trustingCertificatesIn pemFile: URL) throws -> HTTPClient {
        let path = pemFile.standardizedFileURL.path
        return try trustingClients.withLock { clients in
            if let client = clients[path] { return client }
            let client = try makeHTTPClient(trustingCertificatesIn: URL(fileURLWithPath: path))
            clients[path] = client
            return client
        }
    }

    /// The clients of ``sharedHTTPClient(trustingCertificatesIn:)``, by file path.
    private static let trustingClients = Locked<[String: HTTPClient]>([:])
}
