"""AES-256-GCM-SIV (RFC 8452), the AEAD of sealed-blob format 2 (SPEC.md section 18),
written here so the port needs only the standard library: AES-256 (FIPS 197), POLYVAL and
the GCM-SIV construction. Written for checking vectors, not for speed or secrecy (its table
lookups are not constant-time)."""
import hmac
import struct


def _sbox():
    """FIPS 197's S-box: the multiplicative inverse in GF(2⁸), then the affine map."""
    def multiply(a, b):
        product = 0
        while b:
            if b & 1:
                product ^= a
            a = ((a << 1) ^ 0x11B) if a & 0x80 else a << 1
            b >>= 1
        return product
    box = []
    for value in range(256):
        inverse = next((c for c in range(1, 256) if multiply(value, c) == 1), 0)
        result = 0x63
        for shift in range(5):
            result ^= ((inverse << shift) | (inverse >> (8 - shift))) & 0xFF
        box.append(result)
    return bytes(box)


SBOX = _sbox()


def _xtime(byte):
    return ((byte << 1) ^ 0x1B) & 0xFF if byte & 0x80 else byte << 1


def expand_key(key):
    """The 15 round keys of an AES-256 key, 16 bytes each."""
    if len(key) != 32:
        raise ValueError("an AES-256 key has 32 bytes")
    words = [list(key[i:i + 4]) for i in range(0, 32, 4)]
    rcon = 1
    for index in range(8, 60):
        word = words[index - 1][:]
        if index % 8 == 0:
            word = [SBOX[b] for b in word[1:] + word[:1]]
            word[0] ^= rcon
            rcon = _xtime(rcon)
        elif index % 8 == 4:
            word = [SBOX[b] for b in word]
        words.append([a ^ b for a, b in zip(words[index - 8], word)])
    return [sum(words[round * 4:round * 4 + 4], []) for round in range(15)]


def encrypt_block(round_keys, block):
    """One 16-byte block enciphered with expanded AES-256 round keys."""
    state = [b ^ k for b, k in zip(block, round_keys[0])]
    for round in range(1, 15):
        state = [SBOX[b] for b in state]
        # ShiftRows: byte r of column c comes from column c + r (column-major state).
        state = [state[((column + row) % 4) * 4 + row] for column in range(4) for row in range(4)]
        if round != 14:
            mixed = []
            for column in range(4):
                a = state[column * 4:column * 4 + 4]
                total = a[0] ^ a[1] ^ a[2] ^ a[3]
                mixed += [a[row] ^ total ^ _xtime(a[row] ^ a[(row + 1) % 4]) for row in range(4)]
            state = mixed
        state = [b ^ k for b, k in zip(state, round_keys[round])]
    return bytes(state)


# POLYVAL's field: x¹²⁸ + x¹²⁷ + x¹²⁶ + x¹²¹ + 1, blocks read as little-endian integers.
_POLYNOMIAL = (1 << 128) | (1 << 127) | (1 << 126) | (1 << 121) | 1


def _dot(a, b):
    """a · b · x⁻¹²⁸ in POLYVAL's field (RFC 8452 section 3)."""
    product = 0
    while b:
        if b & 1:
            product ^= a
        a <<= 1
        b >>= 1
    for _ in range(128):
        if product & 1:
            product ^= _POLYNOMIAL
        product >>= 1
    return product


def polyval(key, data):
    """POLYVAL(H, X₁…Xₙ) of data whose length is a multiple of 16."""
    h, total = int.from_bytes(key, "little"), 0
    for offset in range(0, len(data), 16):
        total = _dot(total ^ int.from_bytes(data[offset:offset + 16], "little"), h)
    return total.to_bytes(16, "little")


def _derive_keys(key, nonce):
    """The message-authentication key and the expanded message-encryption key (section 4)."""
    round_keys = expand_key(key)
    halves = [encrypt_block(round_keys, struct.pack("<I", counter) + nonce)[:8] for counter in range(6)]
    return halves[0] + halves[1], expand_key(b"".join(halves[2:]))


def _tag(authentication_key, encryption_keys, nonce, plaintext, aad):
    def padded(data):
        return data + b"\x00" * (-len(data) % 16)
    lengths = struct.pack("<QQ", len(aad) * 8, len(plaintext) * 8)
    digest = bytearray(polyval(authentication_key, padded(aad) + padded(plaintext) + lengths))
    for index in range(12):
        digest[index] ^= nonce[index]
    digest[15] &= 0x7F
    return encrypt_block(encryption_keys, bytes(digest))


def _ctr(encryption_keys, tag, data):
    counter = bytearray(tag)
    counter[15] |= 0x80
    first = struct.unpack("<I", counter[:4])[0]
    out = bytearray(len(data))
    for offset in range(0, len(data), 16):
        block = encrypt_block(encryption_keys, struct.pack("<I", (first + offset // 16) & 0xFFFFFFFF) + bytes(counter[4:]))
        chunk = data[offset:offset + 16]
        out[offset:offset + len(chunk)] = bytes(x ^ y for x, y in zip(chunk, block))
    return bytes(out)


def seal(key, nonce, plaintext, aad):
    """Ciphertext and 16-byte tag of AES-256-GCM-SIV (section 4)."""
    authentication_key, encryption_keys = _derive_keys(key, nonce)
    tag = _tag(authentication_key, encryption_keys, nonce, plaintext, aad)
    return _ctr(encryption_keys, tag, plaintext), tag


def open_(key, nonce, ciphertext, tag, aad):
    """The plaintext, or None when the tag does not verify (section 5)."""
    authentication_key, encryption_keys = _derive_keys(key, nonce)
    plaintext = _ctr(encryption_keys, tag, ciphertext)
    if not hmac.compare_digest(_tag(authentication_key, encryption_keys, nonce, plaintext, aad), tag):
        return None
    return plaintext
