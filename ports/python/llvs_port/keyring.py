"""Recovery phrases and keyrings of encrypted exchanges (SPEC.md 18.1-18.3): the phrase's
BIP-39 encoding, device records, and reading a keyring (chain, Ed25519 signatures, HPKE or
recovery slot, MACs), with X25519 (RFC 7748), Ed25519 verification (RFC 8032) and HPKE base
mode (RFC 9180) written here on the standard library and sealed.py's ChaCha20-Poly1305."""

import hashlib
import hmac
import struct
from pathlib import Path

from .sealed import SALT, aead_open, hkdf

WORDS = (Path(__file__).resolve().parents[3] / "conformance" / "formats" / "bip39-english.txt").read_text(encoding="utf-8").split()
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


class KeyringError(Exception):
    """A phrase, keyring or member refused; `error_class` is invalidPhrase, keyringRejected or notEnrolled."""

    def __init__(self, error_class, reason):
        super().__init__(f"{error_class}: {reason}")
        self.error_class = error_class


# Phrases

def phrase_words(secret):
    """The 24 words of a 32-byte secret."""
    bits = int.from_bytes(secret + hashlib.sha256(secret).digest()[:1], "big")
    return " ".join(WORDS[(bits >> (11 * (23 - i))) & 0x7FF] for i in range(24))


def phrase_secret(text):
    """The 32 bytes a phrase stands for; words may be cut to their first four letters."""
    given = text.lower().replace(",", " ").replace("-", " ").split()
    if len(given) != 24:
        raise KeyringError("invalidPhrase", f"{len(given)} words")
    bits = 0
    for word in given:
        matches = [i for i, w in enumerate(WORDS) if w == word] or \
                  ([i for i, w in enumerate(WORDS) if w.startswith(word)] if len(word) >= 4 else [])
        if len(matches) != 1:
            raise KeyringError("invalidPhrase", f"{word} is not in the word list")
        bits = bits << 11 | matches[0]
    secret = (bits >> 8).to_bytes(32, "big")
    if hashlib.sha256(secret).digest()[0] != bits & 0xFF:
        raise KeyringError("invalidPhrase", "the words do not check")
    return secret


# X25519 (RFC 7748)

P = 2 ** 255 - 19


def x25519(scalar, u_bytes):
    k = bytearray(scalar)
    k[0] &= 248
    k[31] &= 127
    k[31] |= 64
    k = int.from_bytes(k, "little")
    x1 = int.from_bytes(u_bytes, "little") & ((1 << 255) - 1)
    x2, z2, x3, z3, swap = 1, 0, x1, 1, 0
    for t in reversed(range(255)):
        bit = (k >> t) & 1
        if swap ^ bit:
            x2, x3, z2, z3 = x3, x2, z3, z2
        swap = bit
        a, b, c, d = (x2 + z2) % P, (x2 - z2) % P, (x3 + z3) % P, (x3 - z3) % P
        aa, bb, da, cb = a * a % P, b * b % P, d * a % P, c * b % P
        e = (aa - bb) % P
        x3, z3 = (da + cb) ** 2 % P, x1 * (da - cb) ** 2 % P
        x2, z2 = aa * bb % P, e * (aa + 121665 * e) % P
    if swap:
        x2, z2 = x3, z3
    return (x2 * pow(z2, P - 2, P) % P).to_bytes(32, "little")


def x25519_public(private):
    return x25519(private, (9).to_bytes(32, "little"))


# Ed25519 (RFC 8032): public keys from seeds, and verification

ED_D = -121665 * pow(121666, P - 2, P) % P
ED_L = 2 ** 252 + 27742317777372353535851937790883648493
SQRT_M1 = pow(2, (P - 1) // 4, P)


def _add(p, q):
    x1, y1, z1, t1 = p
    x2, y2, z2, t2 = q
    a, b = (y1 - x1) * (y2 - x2) % P, (y1 + x1) * (y2 + x2) % P
    c, d = 2 * t1 * t2 * ED_D % P, 2 * z1 * z2 % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return e * f % P, g * h % P, f * g % P, e * h % P


def _multiply(scalar, point):
    result = (0, 1, 1, 0)
    while scalar:
        if scalar & 1:
            result = _add(result, point)
        point = _add(point, point)
        scalar >>= 1
    return result


def _equal(p, q):
    return (p[0] * q[2] - q[0] * p[2]) % P == 0 and (p[1] * q[2] - q[1] * p[2]) % P == 0


def _decompress(data):
    if len(data) != 32:
        return None
    y = int.from_bytes(data, "little")
    sign, y = y >> 255, y & ((1 << 255) - 1)
    if y >= P:
        return None
    x2 = (y * y - 1) * pow(ED_D * y * y + 1, P - 2, P) % P
    if x2 == 0:
        if sign:
            return None
        return 0, y, 1, 0
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P:
        return None
    if x & 1 != sign:
        x = P - x
    return x, y, 1, x * y % P


def _compress(point):
    x, y, z, _ = point
    zi = pow(z, P - 2, P)
    x, y = x * zi % P, y * zi % P
    return (y | (x & 1) << 255).to_bytes(32, "little")


ED_B = _decompress((4 * pow(5, P - 2, P) % P).to_bytes(32, "little"))


def ed25519_public(seed):
    digest = bytearray(hashlib.sha512(seed).digest()[:32])
    digest[0] &= 248
    digest[31] &= 127
    digest[31] |= 64
    return _compress(_multiply(int.from_bytes(digest, "little"), ED_B))


def ed25519_verify(public, message, signature):
    point = _decompress(public)
    r = _decompress(signature[:32]) if len(signature) == 64 else None
    if point is None or r is None:
        return False
    s = int.from_bytes(signature[32:], "little")
    if s >= ED_L:
        return False
    h = int.from_bytes(hashlib.sha512(signature[:32] + public + message).digest(), "little") % ED_L
    return _equal(_multiply(s, ED_B), _add(r, _multiply(h, point)))


# HPKE base mode, DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305 (RFC 9180)

def _extract(salt, ikm):
    return hmac.new(salt or bytes(32), ikm, hashlib.sha256).digest()


def _expand(prk, info, length):
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


def _labeled_extract(suite, salt, label, ikm):
    return _extract(salt, b"HPKE-v1" + suite + label + ikm)


def _labeled_expand(suite, prk, label, info, length):
    return _expand(prk, struct.pack(">H", length) + b"HPKE-v1" + suite + label + info, length)


def hpke_open(private, encapsulated, info, aad, sealed):
    """The plaintext of a single-shot HPKE seal to `private`, or None."""
    kem = b"KEM" + struct.pack(">H", 0x20)
    shared = x25519(private, encapsulated)
    eae_prk = _labeled_extract(kem, b"", b"eae_prk", shared)
    secret = _labeled_expand(kem, eae_prk, b"shared_secret", encapsulated + x25519_public(private), 32)
    suite = b"HPKE" + struct.pack(">HHH", 0x20, 0x01, 0x03)
    context = b"\x00" + _labeled_extract(suite, b"", b"psk_id_hash", b"") + _labeled_extract(suite, b"", b"info_hash", info)
    schedule = _labeled_extract(suite, secret, b"secret", b"")
    key = _labeled_expand(suite, schedule, b"key", context, 32)
    nonce = _labeled_expand(suite, schedule, b"base_nonce", context, 12)
    if len(sealed) < 16:
        return None
    return aead_open(key, nonce, sealed[:-16], sealed[-16:], aad)


# Devices and keyrings

def device_record(name, x25519_private, ed25519_seed):
    """A device's record, identifier and enrollment code from its private keys."""
    agreement, signing = x25519_public(x25519_private), ed25519_public(ed25519_seed)
    encoded = name.encode("utf-8")
    digest = int.from_bytes(hashlib.sha256(b"LLVS enrollment code" + agreement + signing).digest()[:7], "big") >> 6
    code = "".join(CROCKFORD[(digest >> (5 * (9 - i))) & 31] for i in range(10))
    return (bytes([len(encoded)]) + encoded + agreement + signing,
            hashlib.sha256(agreement + signing).digest()[:16], code[:5] + "-" + code[5:])


class Revision:
    """One keyring revision, read (SPEC.md 18.3)."""

    def __init__(self, data, position):
        def fail(reason):
            raise KeyringError("keyringRejected", f"revision at {position}: {reason}")
        if data[:7] != b"LLVSKR\x01" or len(data) < 7 + 4 + 32 + 4 + 16 + 32 + 1:
            fail("not a revision of format 1")
        self.bytes = data
        self.number, = struct.unpack(">I", data[7:11])
        self.previous = data[11:43]
        self.epoch, = struct.unpack(">I", data[43:47])
        self.author = data[47:63]
        self.recovery_signing_key = data[63:95]
        count, offset, self.devices = data[95], 96, []
        for _ in range(count):
            if offset >= len(data):
                fail("cut in its devices")
            n = data[offset]
            name = data[offset + 1:offset + 1 + n]
            agreement = data[offset + 1 + n:offset + 33 + n]
            signing = data[offset + 33 + n:offset + 65 + n]
            if len(signing) != 32 or not 1 <= n <= 64:
                fail("a device record that does not read")
            self.devices.append((name.decode("utf-8"), agreement, signing, hashlib.sha256(agreement + signing).digest()[:16]))
            offset += 65 + n
        if not self.devices or len({d[3] for d in self.devices}) != len(self.devices):
            fail("no device, or one twice")
        self.header = data[:offset]
        secrets = 32 + 32 + 4 + 32 * (self.epoch + 1)
        self.recovery_slot = data[offset:offset + 12 + secrets + 16]
        offset += 12 + secrets + 16
        self.device_slots = []
        for _ in self.devices:
            self.device_slots.append(data[offset:offset + 32 + secrets + 16])
            offset += 32 + secrets + 16
        if offset + 96 != len(data):
            fail("its length does not fit its devices and epoch")
        self.mac, self.signature = data[offset:offset + 32], data[offset + 32:]

    def secrets(self, plaintext):
        if plaintext is None or len(plaintext) != 68 + 32 * (self.epoch + 1):
            return None
        store_key, recovery, count = plaintext[:32], plaintext[32:64], struct.unpack(">I", plaintext[64:68])[0]
        keys = [plaintext[68 + 32 * i:100 + 32 * i] for i in range(count)]
        if count != self.epoch + 1 or keys[0] != hkdf(store_key, SALT, b"epoch 0", 32):
            raise KeyringError("keyringRejected", f"revision {self.number}: secrets that do not fit")
        return {"storeKey": store_key, "recoverySecret": recovery, "epochKeys": keys}


def _recovery_signing_public(secret):
    return ed25519_public(hkdf(secret, SALT, b"keyring recovery signing", 32))


def read_keyring(revisions):
    """The revisions read, their chain and signatures checked."""
    if not revisions:
        raise KeyringError("keyringRejected", "no revision")
    read = []
    for position, data in enumerate(revisions):
        revision = Revision(data, position)
        previous = read[-1] if read else None
        expected = hashlib.sha256(previous.bytes).digest() if previous else bytes(32)
        if revision.number != position or revision.previous != expected or (previous and revision.epoch < previous.epoch):
            raise KeyringError("keyringRejected", f"revision {position} does not follow the one before")
        authority = previous or revision
        if revision.author == bytes(16):
            key = authority.recovery_signing_key
        else:
            key = next((d[2] for d in authority.devices if d[3] == revision.author), None)
        if key is None or not ed25519_verify(key, data[:-64], revision.signature):
            raise KeyringError("keyringRejected", f"revision {position}: its author or signature")
        read.append(revision)
    return read


def open_keyring(revisions, device=None, phrase=None):
    """The secrets the last revision holds for `device` (name, x25519 private key) or the
    phrase's secret, after checking every MAC under the store key found."""
    read = read_keyring(revisions)
    last = read[-1]
    secrets = None
    if device is not None:
        name, private = device
        public = x25519_public(private)
        slot = next((i for i, d in enumerate(last.devices) if d[1] == public), None)
        if slot is None:
            raise KeyringError("notEnrolled", f"device {name} is not in the last revision")
        encapsulated, sealed = last.device_slots[slot][:32], last.device_slots[slot][32:]
        secrets = last.secrets(hpke_open(private, encapsulated, b"LLVS keyring 1", last.header, sealed))
        if secrets is None:
            raise KeyringError("keyringRejected", f"the slot of device {name} does not open")
    else:
        key = hkdf(phrase, SALT, b"keyring recovery", 32)
        slot = last.recovery_slot
        secrets = last.secrets(aead_open(key, slot[:12], slot[12:-16], slot[-16:], last.header))
        if secrets is None or secrets["recoverySecret"] != phrase:
            raise KeyringError("notEnrolled", "the phrase does not open the last revision")
    mac_key = hkdf(secrets["storeKey"], SALT, b"keyring authentication", 32)
    for revision in read:
        body = revision.bytes[:-96]
        if not hmac.compare_digest(hmac.new(mac_key, body, hashlib.sha256).digest(), revision.mac):
            raise KeyringError("keyringRejected", f"revision {revision.number}: its MAC")
    return secrets
