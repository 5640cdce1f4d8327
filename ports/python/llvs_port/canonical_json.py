"""SPEC.md section 2: canonical JSON — keys in UTF-8 byte order, no white space, minimal
escapes, base64 byte strings, shortest round-trip numbers in Swift's `description` form."""
import base64
import binascii
import json
import math

from .binary import FormatError


def number(x):
    """A double in section 2's form: plain decimal when 1e-4 <= |x| <= 2**53, otherwise
    d.ddde±XX; the shortest digits that read back as x; no trailing ".0"."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise FormatError(f"not a number: {x!r}")
    if isinstance(x, int):
        return str(x)
    if not math.isfinite(x):
        raise FormatError("a number that is not finite")
    if x == 0:
        return "-0" if math.copysign(1, x) < 0 else "0"
    if 1e-4 <= abs(x) <= 2 ** 53:
        text = _shortest_plain(x)
        return text[:-2] if text.endswith(".0") else text
    mantissa, exponent = _digits(x)
    sign = "-" if x < 0 else ""
    body = mantissa[0] + ("." + mantissa[1:] if len(mantissa) > 1 else "")
    return f"{sign}{body}e{'+' if exponent >= 0 else '-'}{abs(exponent):02d}"


def _digits(x):
    """The shortest decimal digits of |x| (no leading or trailing zeros) and the exponent
    of the first digit."""
    text = repr(abs(x))
    if "e" in text:
        mantissa, exponent = text.split("e")
        exponent = int(exponent)
    else:
        mantissa, exponent = text, 0
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    leading = len(whole + fraction) - len((whole + fraction).lstrip("0"))
    first = exponent + len(whole) - 1 - leading
    return digits.rstrip("0") or "0", first


def _shortest_plain(x):
    mantissa, first = _digits(x)
    sign = "-" if x < 0 else ""
    if first >= 0:
        whole = mantissa[:first + 1].ljust(first + 1, "0")
        fraction = mantissa[first + 1:]
    else:
        whole, fraction = "0", "0" * (-first - 1) + mantissa
    return sign + whole + ("." + fraction if fraction else "")


def _string(s):
    out = ['"']
    for ch in s:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch in "\b\f\n\r\t":
            out.append({"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        elif code < 0x20:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def dumps(value):
    """Canonical JSON text of dicts, lists, strings, numbers, booleans and None; bytes are
    written as base64."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (bytes, bytearray)):
        return _string(base64.b64encode(bytes(value)).decode("ascii"))
    if isinstance(value, (int, float)):
        return number(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(dumps(v) for v in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: k.encode("utf-8"))
        return "{" + ",".join(_string(k) + ":" + dumps(value[k]) for k in keys) + "}"
    raise FormatError(f"cannot write {type(value).__name__} as JSON")


def loads(text):
    """Any valid JSON (readers accept any key order, white space and escapes); numbers
    keep whether they were written as integers."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as error:
        raise FormatError(f"not JSON: {error}") from None


def base64_bytes(text, what):
    """Standard base64 with padding (RFC 4648 section 4), strictly."""
    if not isinstance(text, str):
        raise FormatError(f"{what}: not a base64 string")
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise FormatError(f"{what}: not base64") from None
