import AsyncHTTPClient

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
