"""SPEC.md section 5: binary encoding primitives."""
import hashlib
import struct


ERROR_CLASSES = ("truncated", "malformedVarint", "invalidUTF8", "trailingBytes", "unknownFormat", "outOfOrder",
                 "checksumMismatch", "invalidContent")


class FormatError(ValueError):
    """Bytes that do not follow the format; the message names what and where, and
    ``error_class`` is one of ``ERROR_CLASSES`` (conformance/README.md)."""

    def __init__(self, message, error_class="invalidContent"):
        super().__init__(message)
        assert error_class in ERROR_CLASSES, error_class
        self.error_class = error_class


def varint(n):
    """Unsigned LEB128: 7 bits per byte, least significant group first."""
    if n < 0 or n >= 1 << 64:
        raise FormatError(f"varint out of range: {n}")
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def utf8(s):
    """The UTF-8 bytes of an identifier (section 1: identifiers compare by these)."""
    return s.encode("utf-8")


def string(s):
    """A varint byte count, then the UTF-8 bytes."""
    b = utf8(s)
    return varint(len(b)) + b


def blob(b):
    """A varint byte count, then the bytes."""
    return varint(len(b)) + bytes(b)


def sha256(b):
    return hashlib.sha256(b).digest()


class Reader:
    """Reads the primitives from bytes, checking every bound; ``what`` names the bytes
    in errors."""

    def __init__(self, data, what):
        self.data = bytes(data)
        self.offset = 0
        self.what = what

    def fail(self, reason, error_class="invalidContent"):
        raise FormatError(f"{self.what}: {reason} at byte {self.offset}", error_class)

    @property
    def remaining(self):
        return len(self.data) - self.offset

    @property
    def at_end(self):
        return self.offset == len(self.data)

    def take(self, count):
        if count < 0 or count > self.remaining:
            self.fail(f"{count} bytes wanted, {self.remaining} left", "truncated")
        start = self.offset
        self.offset += count
        return self.data[start:self.offset]

    def byte(self):
        return self.take(1)[0]

    def u16be(self):
        return struct.unpack(">H", self.take(2))[0]

    def u32le(self):
        return struct.unpack("<I", self.take(4))[0]

    def u64le(self):
        return struct.unpack("<Q", self.take(8))[0]

    def f64le(self):
        return struct.unpack("<d", self.take(8))[0]

    def varint(self):
        result, shift = 0, 0
        while True:
            if self.at_end:
                self.fail("truncated varint", "truncated")
            byte = self.byte()
            group = byte & 0x7F
            if shift >= 64 or (shift == 63 and group > 1):
                self.fail("varint over 64 bits", "malformedVarint")
            result |= group << shift
            if byte & 0x80 == 0:
                if byte == 0 and shift > 0:
                    self.fail("varint not in its shortest form (a last group of 0)", "malformedVarint")
                return result
            shift += 7

    def blob(self):
        return self.take(self.varint())

    def string(self):
        raw = self.blob()
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            self.fail("invalid UTF-8 in a string", "invalidUTF8")

    def digest(self):
        return self.take(32)
