"""Sealed versions of an encrypted exchange (SPEC.md section 18): the keys a store key
derives (HKDF-SHA256), version names (HMAC-SHA256), PADMÉ, and the two AEADs written here,
ChaCha20-Poly1305 (RFC 8439, format 1) and AES-256-GCM-SIV (RFC 8452, format 2, in
``gcm_siv``), so the port needs only the standard library. ``open_blob`` checks what
section 18 lists and names the class of a refusal; ``seal`` makes the same bytes as the
Swift implementation (sealing is deterministic)."""
import hashlib
import hmac
import struct

from . import gcm_siv
from .exchange import decode_batch, encode_batch

SALT = b"LLVS E2E 1"
DOMAIN = b"LLVS sealed version"
FORMAT_CHACHA_POLY = 1
FORMAT_GCM_SIV = 2
GCM_SIV_NONCE = bytes(12)
HEADER = 1 + 4 + 12
TAG = 16


class SealedError(Exception):
    """A refused blob; ``error_class`` is section 18's name for the refusal."""

    def __init__(self, error_class, reason):
        super().__init__(f"{error_class}: {reason}")
        self.error_class = error_class


# ChaCha20-Poly1305 (RFC 8439)

def _rotl(value, shift):
    return ((value << shift) | (value >> (32 - shift))) & 0xFFFFFFFF


def _quarter(state, a, b, c, d):
    state[a] = (state[a] + state[b]) & 0xFFFFFFFF
    state[d] = _rotl(state[d] ^ state[a], 16)
    state[c] = (state[c] + state[d]) & 0xFFFFFFFF
    state[b] = _rotl(state[b] ^ state[c], 12)
    state[a] = (state[a] + state[b]) & 0xFFFFFFFF
    state[d] = _rotl(state[d] ^ state[a], 8)
    state[c] = (state[c] + state[d]) & 0xFFFFFFFF
    state[b] = _rotl(state[b] ^ state[c], 7)


def chacha20_block(key, counter, nonce):
    """One 64-byte block of the ChaCha20 keystream (section 2.3)."""
    initial = list(struct.unpack("<4I", b"expand 32-byte k")) + list(struct.unpack("<8I", key)) \
        + [counter & 0xFFFFFFFF] + list(struct.unpack("<3I", nonce))
    state = initial[:]
    for _ in range(10):
        _quarter(state, 0, 4, 8, 12)
        _quarter(state, 1, 5, 9, 13)
        _quarter(state, 2, 6, 10, 14)
        _quarter(state, 3, 7, 11, 15)
        _quarter(state, 0, 5, 10, 15)
        _quarter(state, 1, 6, 11, 12)
        _quarter(state, 2, 7, 8, 13)
        _quarter(state, 3, 4, 9, 14)
    return struct.pack("<16I", *((s + i) & 0xFFFFFFFF for s, i in zip(state, initial)))


def chacha20_xor(key, counter, nonce, data):
    """``data`` XOR the keystream from block ``counter`` (section 2.4)."""
    out = bytearray(len(data))
    for offset in range(0, len(data), 64):
        block = chacha20_block(key, counter + offset // 64, nonce)
        chunk = data[offset:offset + 64]
        out[offset:offset + len(chunk)] = bytes(x ^ y for x, y in zip(chunk, block))
    return bytes(out)


def poly1305(key, message):
    """The 16-byte Poly1305 tag of ``message`` under a one-time 32-byte key (section 2.5)."""
    r = int.from_bytes(key[:16], "little") & 0x0FFFFFFC0FFFFFFC0FFFFFFC0FFFFFFF
    s = int.from_bytes(key[16:], "little")
    p = (1 << 130) - 5
    accumulator = 0
    for offset in range(0, len(message), 16):
        block = message[offset:offset + 16] + b"\x01"
        accumulator = (accumulator + int.from_bytes(block, "little")) * r % p
    return ((accumulator + s) & ((1 << 128) - 1)).to_bytes(16, "little")


def _mac_data(aad, ciphertext):
    def padded(data):
        return data + b"\x00" * (-len(data) % 16)
    return padded(aad) + padded(ciphertext) + struct.pack("<QQ", len(aad), len(ciphertext))


def aead_seal(key, nonce, plaintext, aad):
    """Ciphertext and tag (section 2.8)."""
    ciphertext = chacha20_xor(key, 1, nonce, plaintext)
    return ciphertext, poly1305(chacha20_block(key, 0, nonce)[:32], _mac_data(aad, ciphertext))


def aead_open(key, nonce, ciphertext, tag, aad):
    """The plaintext, or None when the tag does not verify."""
    expected = poly1305(chacha20_block(key, 0, nonce)[:32], _mac_data(aad, ciphertext))
    if not hmac.compare_digest(expected, tag):
        return None
    return chacha20_xor(key, 1, nonce, ciphertext)


# Keys, names, padding

def hkdf(ikm, salt, info, length):
    """HKDF-SHA256 (RFC 5869)."""
    return hkdf_expand(hmac.new(salt, ikm, hashlib.sha256).digest(), info, length)


def hkdf_expand(prk, info, length):
    """HKDF-Expand with SHA-256 (RFC 5869, section 2.3)."""
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


class Keys:
    """The keys of a store key (section 18), with the epoch keys known."""

    def __init__(self, store_key, epoch_keys=None):
        if len(store_key) != 32:
            raise ValueError("a store key has 32 bytes")
        self.store_identifier = hkdf(store_key, SALT, b"store identifier", 16)
        self.name_key = hkdf(store_key, SALT, b"version names", 32)
        self.epoch_keys = {0: hkdf(store_key, SALT, b"epoch 0", 32)}
        self.epoch_keys.update(epoch_keys or {})

    def name(self, identifier):
        """The 32-byte name of a version identifier."""
        return hmac.new(self.name_key, identifier.encode("utf-8", "surrogatepass"), hashlib.sha256).digest()


def padme(length):
    """PADMÉ: ``length`` rounded up so only its top ⌊log₂ ⌊log₂ length⌋⌋ + 1 bits may be set."""
    if length <= 1:
        return length
    exponent = length.bit_length() - 1
    significant = exponent.bit_length()
    mask = (1 << max(0, exponent - significant)) - 1
    return (length + mask) & ~mask


def _blob_key(epoch_key, name):
    return hkdf_expand(epoch_key, b"sealed version key" + name, 32)


def _nonce(epoch_key, name, plaintext):
    nonce_key = hkdf_expand(epoch_key, b"sealed version nonce", 32)
    return hmac.new(nonce_key, name + plaintext, hashlib.sha256).digest()[:12]


def _associated_data(format_byte, epoch, keys, name):
    return DOMAIN + bytes([format_byte]) + struct.pack(">I", epoch) + keys.store_identifier + name


def seal_plaintext(plaintext, epoch, name, keys, format_byte):
    """The blob of a framed, padded plaintext under ``epoch``, in format 1 or 2."""
    epoch_key = keys.epoch_keys[epoch]
    aad = _associated_data(format_byte, epoch, keys, name)
    if format_byte == FORMAT_CHACHA_POLY:
        nonce = _nonce(epoch_key, name, plaintext)
        ciphertext, tag = aead_seal(_blob_key(epoch_key, name), nonce, plaintext, aad)
    elif format_byte == FORMAT_GCM_SIV:
        nonce = GCM_SIV_NONCE
        ciphertext, tag = gcm_siv.seal(_blob_key(epoch_key, name), nonce, plaintext, aad)
    else:
        raise ValueError(f"no format {format_byte}")
    return bytes([format_byte]) + struct.pack(">I", epoch) + nonce + ciphertext + tag


def seal(version, changes, epoch, keys, format_byte):
    """The blob of a version (decoded section 3 form) with its changes, under ``epoch`` in
    format 1 or 2, and the version's name."""
    payload = encode_batch([(version, changes)])
    framed = struct.pack(">I", len(payload)) + payload
    framed += b"\x00" * (padme(len(framed)) - len(framed))
    name = keys.name(version["identifier"])
    return name, seal_plaintext(framed, epoch, name, keys, format_byte)


def open_blob(blob, name, keys):
    """``("version", version, changes)`` or ``("pending", epoch)``; raises SealedError."""
    plaintext = _open_plaintext(blob, name, keys)
    if plaintext is None:
        return ("pending", struct.unpack(">I", blob[1:5])[0])
    if len(plaintext) < 4:
        raise SealedError("malformedContents", "no length")
    length = struct.unpack(">I", plaintext[:4])[0]
    if length > len(plaintext) - 4 or padme(4 + length) != len(plaintext) or any(plaintext[4 + length:]):
        raise SealedError("malformedContents", f"a length of {length} does not fit {len(plaintext)} bytes")
    try:
        entries = decode_batch(plaintext[4:4 + length], "sealed payload")
    except Exception as error:  # the batch decoder's FormatError, with its own class
        raise SealedError("malformedContents", str(error)) from error
    if len(entries) != 1:
        raise SealedError("malformedContents", f"{len(entries)} versions instead of one")
    version, changes = entries[0]
    if keys.name(version["identifier"]) != name:
        raise SealedError("malformedContents", f"it holds version {version['identifier']!r}, whose name is another")
    return ("version", version, changes)


# Sealed snapshot parts (section 18.6)

def snapshot_manifest_name(snapshot_id, keys):
    """``snapshot-`` and the first 8 bytes, in hex, of HMAC-SHA256(name key, "snapshot " + id)."""
    return "snapshot-" + keys.name("snapshot " + snapshot_id)[:8].hex()


def snapshot_chunk_name(manifest_name, index):
    return f"{manifest_name}-{index:08x}"


def _open_plaintext(blob, name, keys):
    """The padded plaintext of a blob named by the bytes ``name``, or None when its epoch has
    no key; raises SealedError."""
    if len(blob) < HEADER + TAG:
        raise SealedError("tampered", f"{len(blob)} bytes is shorter than a header and a tag")
    if blob[0] not in (FORMAT_CHACHA_POLY, FORMAT_GCM_SIV):
        raise SealedError("unsupportedFormat", f"format {blob[0]}")
    epoch = struct.unpack(">I", blob[1:5])[0]
    if epoch not in keys.epoch_keys:
        return None
    epoch_key = keys.epoch_keys[epoch]
    nonce, aad = blob[5:HEADER], _associated_data(blob[0], epoch, keys, name)
    if blob[0] == FORMAT_GCM_SIV:
        if nonce != GCM_SIV_NONCE:
            raise SealedError("tampered", "the nonce of a format-2 blob is not 12 zero bytes")
        plaintext = gcm_siv.open_(_blob_key(epoch_key, name), nonce, blob[HEADER:-TAG], blob[-TAG:], aad)
        if plaintext is None:
            raise SealedError("tampered", "the tag does not match")
        return plaintext
    plaintext = aead_open(_blob_key(epoch_key, name), nonce, blob[HEADER:-TAG], blob[-TAG:], aad)
    if plaintext is None:
        raise SealedError("tampered", "the tag does not match")
    if _nonce(epoch_key, name, plaintext) != nonce:
        raise SealedError("tampered", "the nonce is not the plaintext's")
    return plaintext


def seal_snapshot_part(payload, blob_name, fixed_size, epoch, keys, format_byte):
    """A sealed manifest (``fixed_size`` None: padded with PADMÉ) or chunk (padded to 4 + fixed_size)."""
    framed = struct.pack(">I", len(payload)) + payload
    total = 4 + fixed_size if fixed_size is not None else padme(len(framed))
    return seal_plaintext(framed + b"\x00" * (total - len(framed)), epoch, blob_name.encode("utf-8"), keys, format_byte)


def open_snapshot_part(blob, blob_name, fixed_size, keys):
    """The payload of a sealed snapshot part; raises SealedError."""
    plaintext = _open_plaintext(blob, blob_name.encode("utf-8"), keys)
    if plaintext is None:
        raise SealedError("invalidKey", f"{blob_name} is sealed under an epoch whose key has not arrived")
    if len(plaintext) < 4:
        raise SealedError("malformedContents", "no length")
    length = struct.unpack(">I", plaintext[:4])[0]
    expected = 4 + fixed_size if fixed_size is not None else padme(4 + length)
    if length > len(plaintext) - 4 or len(plaintext) != expected or any(plaintext[4 + length:]):
        raise SealedError("malformedContents", f"a length of {length} does not fit {len(plaintext)} bytes")
    return plaintext[4:4 + length]
