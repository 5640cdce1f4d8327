import Foundation
import LLVSExchange
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The entries of a PROPFIND `207 Multi-Status` answer (RFC 4918 section 9.1): each
/// `response`'s `href`, whether its `resourcetype` holds `collection`, its
/// `getcontentlength` and `getlastmodified`.
enum WebDAVListing {
    /// One `response` of the answer.
    struct Response: Equatable {
        var href: String
        var isCollection = false
        var byteCount = 0
        var modified: Date?
    }

    /// The request body: the four properties read.
    static let requestBody = Data("""
        <?xml version="1.0" encoding="utf-8"?>
        <d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/><d:getcontentlength/><d:getlastmodified/><d:getetag/></d:prop></d:propfind>
        """.utf8)

    /// The responses of a multistatus body.
    ///
    /// - Throws: A description of what is wrong when the body is not a multistatus document.
    static func responses(in body: Data) throws(Malformed) -> [Response] {
        let parser = XMLParser(data: body)
        let delegate = Delegate()
        parser.delegate = delegate
        parser.shouldProcessNamespaces = true
        guard parser.parse(), delegate.sawMultistatus else {
            throw Malformed(reason: parser.parserError.map { "not a WebDAV multistatus document: \($0.localizedDescription)" }
                ?? "not a WebDAV multistatus document")
        }
        return delegate.responses
    }

    /// Why an answer could not be read.
    struct Malformed: Error {
        var reason: String
    }

    /// The entries of the folder whose path (as the server writes it in `href`s) ends in
    /// `folderPath`: every response but the folder's own, named by the last segment of its
    /// `href`, percent-decoded. A response whose name is not a plain file name (`.`, `..`,
    /// empty, holding `/` or NUL once decoded, or not UTF-8) is left out: such a name could
    /// only address some other file.
    static func entries(_ responses: [Response], folderPath: String) -> [ExchangeFolderEntry] {
        let folder = folderPath.split(separator: "/").map(String.init)
        return responses.compactMap { response in
            guard let segments = hrefSegments(response.href), segments != folder, let name = segments.last, isPlainName(name) else {
                return nil
            }
            return ExchangeFolderEntry(name: name, isFolder: response.isCollection, byteCount: response.byteCount, modified: response.modified)
        }
    }

    /// The percent-decoded segments of an `href`'s path (it may be a path or a whole URL);
    /// nil when one does not decode to UTF-8.
    static func hrefSegments(_ href: String) -> [String]? {
        var path = href
        if let components = URLComponents(string: href) {
            path = components.percentEncodedPath
        }
        var segments: [String] = []
        for segment in path.split(separator: "/") {
            guard let decoded = segment.removingPercentEncoding else { return nil }
            segments.append(decoded)
        }
        return segments
    }

    /// Whether `name` names a file in its folder and nothing else.
    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.contains("\0")
    }

    /// Parses an RFC 1123 date as `getlastmodified` carries it.
    static func date(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    private final class Delegate: NSObject, XMLParserDelegate {
        var responses: [Response] = []
        /// Whether the `multistatus` element was closed: a cut answer is refused, not half read.
        var sawMultistatus = false
        private var current: Response?
        private var text = ""
        /// Whether the current propstat's status is 2xx (properties of a failed propstat are not there).
        private var propstat: (isSuccess: Bool, collection: Bool, byteCount: Int?, modified: Date?)?

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            text = ""
            guard namespaceURI == "DAV:" else { return }
            switch elementName {
            case "response": current = Response(href: "")
            case "propstat": propstat = (true, false, nil, nil)
            case "collection": propstat?.collection = true
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            text += string
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            guard namespaceURI == "DAV:" else { return }
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            switch elementName {
            case "multistatus": sawMultistatus = true
            case "href" where current != nil && current?.href.isEmpty == true: current?.href = value
            case "getcontentlength": propstat?.byteCount = Int(value)
            case "getlastmodified": propstat?.modified = WebDAVListing.date(value)
            case "status" where propstat != nil:
                let code = value.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 200
                propstat?.isSuccess = (200..<300).contains(code)
            case "propstat":
                if let found = propstat, found.isSuccess {
                    if found.collection { current?.isCollection = true }
                    if let count = found.byteCount { current?.byteCount = count }
                    if let modified = found.modified { current?.modified = modified }
                }
                propstat = nil
            case "response":
                if let current, !current.href.isEmpty { responses.append(current) }
                current = nil
            default: break
            }
            text = ""
        }
    }
}
