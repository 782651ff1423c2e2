"""AES-128 (the cipher direction only) and the LE link layer's AES-CCM (Core 5.4 Vol 6 Part E):
session key SK = AES(LTK, SKDm || SKDs), nonce = 39-bit packetCounter with the direction bit (1 =
central to peripheral) then IVm || IVs, one octet of AAD (the data header's first octet with NESN,
SN and MD cleared), a 4-octet MIC. Pure Python standard library, for the corpus scripts:
make_link_layer.py encrypts with it, check_link_layer.py decrypts, after checking it against the
MICs of a real encrypted capture (captures/public, bsniffhub, whose file name gives its LTK).
"""

_SBOX = []
def _init():
    # S-box from the multiplicative inverse in GF(2^8) and the affine map.
    inv = [0] * 256
    for a in range(1, 256):
        for b in range(1, 256):
            if _gmul(a, b) == 1:
                inv[a] = b
                break
    for x in range(256):
        b = inv[x]
        s = b ^ _rotl8(b, 1) ^ _rotl8(b, 2) ^ _rotl8(b, 3) ^ _rotl8(b, 4) ^ 0x63
        _SBOX.append(s)
def _rotl8(x, n):
    return ((x << n) | (x >> (8 - n))) & 0xFF
def _gmul(a, b):
    p = 0
    while b:
        if b & 1:
            p ^= a
        a = (a << 1) ^ (0x11B if a & 0x80 else 0)
        b >>= 1
    return p
_init()
def _expand(key):
    w = [list(key[4 * i:4 * i + 4]) for i in range(4)]
    rcon = 1
    for i in range(4, 44):
        t = list(w[i - 1])
        if i % 4 == 0:
            t = [_SBOX[t[1]] ^ rcon, _SBOX[t[2]], _SBOX[t[3]], _SBOX[t[0]]]
            rcon = _gmul(rcon, 2)
        w.append([w[i - 4][j] ^ t[j] for j in range(4)])
    return [sum((w[4 * r + c] for c in range(4)), []) for r in range(11)]
class AES:
    def __init__(self, key):
        self.rk = _expand(key)
    def enc(self, block):
        rk = self.rk
        s = [block[i] ^ rk[0][i] for i in range(16)]
        for r in range(1, 11):
            s = [_SBOX[x] for x in s]
            s = [s[(i + 4 * (i % 4)) % 16] for i in range(16)]
            if r != 10:
                n = []
                for c in range(4):
                    a = s[4 * c:4 * c + 4]
                    n += [_gmul(a[0], 2) ^ _gmul(a[1], 3) ^ a[2] ^ a[3],
                          a[0] ^ _gmul(a[1], 2) ^ _gmul(a[2], 3) ^ a[3],
                          a[0] ^ a[1] ^ _gmul(a[2], 2) ^ _gmul(a[3], 3),
                          _gmul(a[0], 3) ^ a[1] ^ a[2] ^ _gmul(a[3], 2)]
                s = n
            s = [s[i] ^ rk[r][i] for i in range(16)]
        return bytes(s)

def _xor(a, b):
    return bytes(x ^ y for x, y in zip(a, b))

def ccm(aes, nonce, aad, data, decrypt=False):
    """BLE AES-CCM (M = 4, L = 2, 1-octet AAD). Returns (output, mic)."""
    def ctr(i):
        return aes.enc(bytes([0x01]) + nonce + i.to_bytes(2, "big"))
    stream = b"".join(ctr(i + 1) for i in range((len(data) + 15) // 16))
    plain = _xor(data, stream) if decrypt else data
    out = _xor(data, stream)
    x = aes.enc(bytes([0x49]) + nonce + len(plain).to_bytes(2, "big"))
    x = aes.enc(_xor(x, (b"\x00\x01" + aad).ljust(16, b"\0")))
    for i in range(0, len(plain), 16):
        x = aes.enc(_xor(x, plain[i:i + 16].ljust(16, b"\0")))
    mic = _xor(x[:4], ctr(0)[:4])
    return out, mic


def session(ltk_le, skdm, skds, ivm, ivs):
    """(AES with the session key, IV) from the LTK as HCI carries it (little-endian) and the
    SKD / IV halves as LL_ENC_REQ / LL_ENC_RSP carry them."""
    sk = AES(bytes(ltk_le)[::-1]).enc((bytes(skdm) + bytes(skds))[::-1])
    return AES(sk), bytes(ivm) + bytes(ivs)


def nonce(counter, central_to_peripheral, iv):
    return (counter | (1 << 39 if central_to_peripheral else 0)).to_bytes(5, "little") + iv
