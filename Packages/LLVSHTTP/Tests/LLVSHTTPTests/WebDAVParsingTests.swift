import Foundation
import PropertyBased
import Testing
@testable import LLVSWebDAV

/// The parts of the WebDAV exchange that read what a server or a file says: PROPFIND
/// answers (hostile `href`s among them) and netrc files.
///
/// Replay a property failure by adding the `.fixedSeed("…")` trait the failure message prints.
@Suite struct WebDAVParsingTests {
    static func multistatus(_ responses: [String]) -> Data {
        Data(("<?xml version=\"1.0\" encoding=\"utf-8\"?><D:multistatus xmlns:D=\"DAV:\">" + responses.joined() + "</D:multistatus>").utf8)
    }

    static func response(_ href: String, collection: Bool = false, length: Int? = nil, status: String = "HTTP/1.1 200 OK") -> String {
        let type = collection ? "<D:resourcetype><D:collection/></D:resourcetype>" : "<D:resourcetype/>"
        let size = length.map { "<D:getcontentlength>\($0)</D:getcontentlength>" } ?? ""
        return "<D:response><D:href>\(href)</D:href><D:propstat><D:prop>\(type)\(size)</D:prop><D:status>\(status)</D:status></D:propstat></D:response>"
    }

    static func names(_ responses: [String], folder: String = "/dav/x/log") throws -> [String] {
        try WebDAVListing.entries(WebDAVListing.responses(in: multistatus(responses)), folderPath: folder).map(\.name)
    }

    @Test func aListingNamesTheFolderEntriesButNotTheFolder() throws {
        let body = Self.multistatus([
            Self.response("/dav/x/log/", collection: true),
            Self.response("/dav/x/log/a-00000000.log", length: 120),
            Self.response("https://host.example/dav/x/log/sub/", collection: true),
            Self.response("/dav/x/log/with%20space.log", length: 7),
        ])
        let entries = WebDAVListing.entries(try WebDAVListing.responses(in: body), folderPath: "/dav/x/log")
        #expect(entries.map(\.name) == ["a-00000000.log", "sub", "with space.log"])
        #expect(entries.map(\.isFolder) == [false, true, false])
        #expect(entries.map(\.byteCount) == [120, 0, 7])
    }

    /// Names that could address another file are left out: `..`, `.`, an encoded `/` or
    /// NUL, bytes that are not UTF-8, an empty name.
    @Test func hostileHrefsAreLeftOut() throws {
        let names = try Self.names([
            Self.response("/dav/x/log/.."), Self.response("/dav/x/log/%2E%2E"), Self.response("/dav/x/log/."),
            Self.response("/dav/x/log/a%2F..%2F..%2Fsecret"), Self.response("/dav/x/log/nul%00.log"),
            Self.response("/dav/x/log/%FF%FE.log"), Self.response(""),
            Self.response("/dav/x/log/kept.log", length: 3),
        ])
        #expect(names == ["kept.log"])
    }

    /// A property the server could not give (a failed propstat) is not taken: a `404`
    /// propstat claiming a collection and a length leaves a plain entry of unknown size.
    @Test func failedPropstatsAreIgnored() throws {
        let failed = "<D:response><D:href>/dav/x/log/f.log</D:href>"
            + "<D:propstat><D:prop><D:getcontentlength>5</D:getcontentlength></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>"
            + "<D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype><D:getcontentlength>99</D:getcontentlength></D:prop>"
            + "<D:status>HTTP/1.1 404 Not Found</D:status></D:propstat></D:response>"
        let entries = WebDAVListing.entries(try WebDAVListing.responses(in: Self.multistatus([failed])), folderPath: "/dav/x/log")
        #expect(entries == [.init(name: "f.log", isFolder: false, byteCount: 5)])
    }

    @Test func answersThatAreNotMultistatusAreRefused() {
        for body in ["", "<D:multistatus xmlns:D=\"DAV:\"><D:response><D:href>/a</D:href>", "<html><body>login</body></html>", "<D:multistatus xmlns:D=\"DAV:\">", "\u{0}\u{1}binary"] {
            #expect(throws: WebDAVListing.Malformed.self) { try WebDAVListing.responses(in: Data(body.utf8)) }
        }
    }

    /// Any bytes percent-encoded into an `href`: the parser does not trap, and every name
    /// it keeps is a plain file name.
    @Test func anyHrefGivesAPlainNameOrNone() async {
        await propertyCheck(input: Gen.int(in: 0...255).array(of: 0...24)) { bytes in
            let encoded = bytes.map { String(format: "%%%02X", $0) }.joined()
            let escaped = encoded.replacingOccurrences(of: "&", with: "&amp;")
            let names = try Self.names([Self.response("/dav/x/log/" + escaped)])
            for name in names { #expect(WebDAVListing.isPlainName(name) && !name.contains("/")) }
        }
    }

    // MARK: netrc

    @Test func netrcMachinesDefaultAndAccounts() {
        let netrc = Netrc(parsing: """
            machine cloud.example.com login ada password "pass word \\"quoted\\""
            machine Other.Example.com
              login bob
              account ignored
              password p2
            machine cloud.example.com login later password ignored
            default login anonymous password guest
            """)
        #expect(netrc.credentials(forHost: "cloud.example.com") == .init(login: "ada", password: "pass word \"quoted\""))
        #expect(netrc.credentials(forHost: "other.example.com") == .init(login: "bob", password: "p2"))
        #expect(netrc.credentials(forHost: "unknown.example.com") == .init(login: "anonymous", password: "guest"))
        #expect(Netrc(parsing: "machine a login x password y").credentials(forHost: "b") == nil)
    }

    /// A `macdef` body runs to the first empty line and is not read as entries; `macdef` as a
    /// password is a password.
    @Test func netrcMacrosAreSkipped() {
        let netrc = Netrc(parsing: """
            machine a.example login one password macdef
            macdef init
            machine evil.example login mallory password stolen
            cd /pub

            machine b.example login two password second
            """)
        #expect(netrc.credentials(forHost: "a.example") == .init(login: "one", password: "macdef"))
        #expect(netrc.credentials(forHost: "evil.example") == nil)
        #expect(netrc.credentials(forHost: "b.example") == .init(login: "two", password: "second"))
    }

    /// Any words after an entry: parsing does not trap, and the entry stays what it said
    /// (a host's first entry wins; nothing after a new `machine` changes it).
    @Test func anyNetrcTextParses() async {
        let words = Gen.int(in: 0...8).map { ["machine", "login", "password", "account", "default", "macdef", "\n", "x", "\""][$0] }
        await propertyCheck(input: words.array(of: 0...40)) { words in
            let text = "machine first.example login l password p\nmachine " + words.joined(separator: " ")
            #expect(Netrc(parsing: text).credentials(forHost: "first.example") == .init(login: "l", password: "p"))
        }
    }
}
