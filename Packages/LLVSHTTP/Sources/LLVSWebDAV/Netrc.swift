/// The entries of a netrc file, the credentials file of ftp, curl and git:
/// `machine HOST login USER password PASS` entries and a `default` entry, tokens separated
/// by any white space (a token in double quotes may hold white space, and `\"` and `\\`
/// inside them). `account` values are skipped, and so are `macdef` macros (from `macdef` to
/// the next empty line). A host's first entry wins, as in curl.
///
/// ```swift
/// let netrc = Netrc(parsing: try String(contentsOfFile: path, encoding: .utf8))
/// if let entry = netrc.credentials(forHost: "cloud.example.com") {
///     authorization = .basic(user: entry.login, password: entry.password)
/// }
/// ```
public struct Netrc: Sendable, Equatable {
    /// The `login` and `password` of one entry.
    public struct Entry: Sendable, Equatable {
        /// The user name (empty when the entry has none).
        public var login: String
        /// The password (empty when the entry has none).
        public var password: String

        /// An entry with `login` and `password`.
        public init(login: String = "", password: String = "") {
            self.login = login
            self.password = password
        }
    }

    /// The `machine` entries, by lowercased host name.
    public private(set) var machines: [String: Entry] = [:]
    /// The `default` entry.
    public private(set) var fallback: Entry?

    /// The entries of `text`. Nothing in it is an error: words that are not netrc keywords
    /// are skipped, as curl does.
    public init(parsing text: String) {
        let words = Self.words(in: text)
        var current: (host: String?, entry: Entry)?
        var index = 0
        func value() -> String {
            defer { index += 2 }
            return index + 1 < words.count ? words[index + 1] : ""
        }
        func finish() {
            guard let done = current else { return }
            if let host = done.host?.lowercased() {
                if machines[host] == nil { machines[host] = done.entry }
            } else if fallback == nil {
                fallback = done.entry
            }
            current = nil
        }
        while index < words.count {
            switch words[index] {
            case "machine":
                finish()
                current = (value(), Entry())
            case "default":
                finish()
                current = (nil, Entry())
                index += 1
            case "login":
                let login = value()
                current?.entry.login = login
            case "password":
                let password = value()
                current?.entry.password = password
            case "account":
                index += 2
            default:
                index += 1
            }
        }
        finish()
    }

    /// The entry for `host` (case-insensitive), else the `default` entry, else nil.
    public func credentials(forHost host: String) -> Entry? {
        machines[host.lowercased()] ?? fallback
    }

    /// The tokens of `text`, without `macdef` macros: the rest of the `macdef` line (the
    /// macro's name) and the lines after it up to an empty one.
    static func words(in text: String) -> [String] {
        enum Macro { case none, name, body(lineIsEmpty: Bool) }
        var words: [String] = []
        var word = ""
        var inWord = false
        var quoted = false
        var escaped = false
        var wordWasQuoted = false
        var macro = Macro.none
        func endWord() {
            guard inWord else { return }
            // "macdef" starts a macro where a keyword may stand, not as a value.
            let isValue = ["machine", "login", "password", "account"].contains(words.last ?? "")
            if word == "macdef" && !wordWasQuoted && !isValue {
                macro = .name
            } else {
                words.append(word)
            }
            word = ""
            inWord = false
            wordWasQuoted = false
        }
        for character in text {
            switch macro {
            case .name:
                if character.isNewline { macro = .body(lineIsEmpty: true) }
                continue
            case .body(let lineIsEmpty):
                if character.isNewline {
                    macro = lineIsEmpty ? .none : .body(lineIsEmpty: true)
                } else if !character.isWhitespace {
                    macro = .body(lineIsEmpty: false)
                }
                continue
            case .none:
                break
            }
            if quoted {
                if escaped {
                    word.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    quoted = false
                } else {
                    word.append(character)
                }
            } else if character.isWhitespace {
                endWord()
                if character.isNewline, case .name = macro { macro = .body(lineIsEmpty: true) }
            } else if character == "\"" && !inWord {
                quoted = true
                inWord = true
                wordWasQuoted = true
            } else {
                word.append(character)
                inWord = true
            }
        }
        endWord()
        return words
    }
}
