/**
 * Reads ZIP archives whose entries are encrypted with WinZip AES (AE-1 and AE-2, 128/192/256-bit), the
 * format that archiver-zip-encrypted writes and 7-Zip, WinZip and macOS Archive Utility read. Everything is
 * node:crypto: PBKDF2-HMAC-SHA1 (1000 iterations) derives the AES key, the HMAC-SHA1 key and a 2-byte
 * password verifier; data is AES-CTR with a little-endian counter starting at 1; the last 10 bytes of an
 * entry are the HMAC-SHA1 of the ciphertext. Spec: https://www.winzip.com/en/support/aes-encryption/
 *
 * The whole archive is held in memory (backups are tens of MB); ZIP64 directories are understood.
 */
import { createCipheriv, createHmac, pbkdf2Sync, timingSafeEqual } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';

/** Why an archive could not be read; the caller turns it into one sentence for a person. */
export type ZipFailure =
  | 'not-zip'
  | 'truncated'
  | 'not-encrypted'
  | 'unsupported'
  | 'wrong-password'
  | 'auth-failed'
  | 'corrupt';

export class ZipReadError extends Error {
  override name = 'ZipReadError';
  constructor(
    readonly reason: ZipFailure,
    message: string,
    readonly entry?: string,
  ) {
    super(message);
  }
}

export interface ZipEntry {
  name: string;
  /** Compression method in the central directory (99 = WinZip AES). */
  method: number;
  flags: number;
  crc32: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
  /** The 0x9901 extra field, when the entry is AES-encrypted. */
  aes?: { version: number; strength: number; method: number };
}

const SIG_EOCD = 0x06054b50;
const SIG_ZIP64_LOCATOR = 0x07064b50;
const SIG_ZIP64_EOCD = 0x06064b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_LOCAL = 0x04034b50;
const METHOD_STORED = 0;
const METHOD_DEFLATE = 8;
const METHOD_AES = 99;
const AES_EXTRA_ID = 0x9901;
const ZIP64_EXTRA_ID = 0x0001;
const MAC_LENGTH = 10;
const PBKDF2_ITERATIONS = 1000;
/** Key bytes and salt bytes per AES strength (1 = 128, 2 = 192, 3 = 256 bits). */
const STRENGTH: Record<number, { key: number; salt: number }> = {
  1: { key: 16, salt: 8 },
  2: { key: 24, salt: 12 },
  3: { key: 32, salt: 16 },
};

/** Reads the central directory: every entry's name, sizes, offsets and AES parameters. */
export function readZipDirectory(buf: Buffer): ZipEntry[] {
  if (buf.length < 22)
    throw new ZipReadError(
      buf.length >= 4 && buf.readUInt32LE(0) === SIG_LOCAL ? 'truncated' : 'not-zip',
      'no ZIP end record',
    );
  const eocd = findEndOfCentralDirectory(buf);
  if (eocd < 0) {
    throw new ZipReadError(buf.readUInt32LE(0) === SIG_LOCAL ? 'truncated' : 'not-zip', 'no ZIP end record');
  }
  let count = buf.readUInt16LE(eocd + 10);
  let cdSize = buf.readUInt32LE(eocd + 12);
  let cdOffset = buf.readUInt32LE(eocd + 16);
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    const loc = eocd - 20;
    if (loc < 0 || buf.readUInt32LE(loc) !== SIG_ZIP64_LOCATOR)
      throw new ZipReadError('corrupt', 'ZIP64 locator missing');
    const z64 = readU64(buf, loc + 8);
    if (z64 + 56 > buf.length || buf.readUInt32LE(z64) !== SIG_ZIP64_EOCD)
      throw new ZipReadError('corrupt', 'ZIP64 end record missing');
    count = readU64(buf, z64 + 32);
    cdSize = readU64(buf, z64 + 40);
    cdOffset = readU64(buf, z64 + 48);
  }
  if (cdOffset + cdSize > buf.length)
    throw new ZipReadError('truncated', 'central directory beyond the end of the file');
  const entries: ZipEntry[] = [];
  let p = cdOffset;
  for (let i = 0; i < count; i++) {
    if (p + 46 > buf.length || buf.readUInt32LE(p) !== SIG_CENTRAL)
      throw new ZipReadError('corrupt', 'bad central directory record');
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    if (p + 46 + nameLen + extraLen + commentLen > buf.length)
      throw new ZipReadError('truncated', 'central directory record cut short');
    const entry: ZipEntry = {
      name: buf.toString('utf8', p + 46, p + 46 + nameLen),
      flags: buf.readUInt16LE(p + 8),
      method: buf.readUInt16LE(p + 10),
      crc32: buf.readUInt32LE(p + 16),
      compressedSize: buf.readUInt32LE(p + 20),
      size: buf.readUInt32LE(p + 24),
      localHeaderOffset: buf.readUInt32LE(p + 42),
    };
    readExtra(buf.subarray(p + 46 + nameLen, p + 46 + nameLen + extraLen), entry);
    entries.push(entry);
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/** Decrypts, inflates and authenticates one entry; throws a {@link ZipReadError} saying why it cannot. */
export function readZipEntry(buf: Buffer, entry: ZipEntry, password: string): Buffer {
  const lh = entry.localHeaderOffset;
  if (lh + 30 > buf.length || buf.readUInt32LE(lh) !== SIG_LOCAL)
    throw new ZipReadError('corrupt', 'bad local header', entry.name);
  const start = lh + 30 + buf.readUInt16LE(lh + 26) + buf.readUInt16LE(lh + 28);
  if (start + entry.compressedSize > buf.length)
    throw new ZipReadError('truncated', 'entry data beyond the end of the file', entry.name);
  const data = buf.subarray(start, start + entry.compressedSize);
  if (entry.method !== METHOD_AES || !entry.aes || (entry.flags & 1) === 0) {
    throw new ZipReadError('not-encrypted', 'entry is not AES-encrypted', entry.name);
  }
  const params = STRENGTH[entry.aes.strength];
  if (!params || (entry.aes.version !== 1 && entry.aes.version !== 2)) {
    throw new ZipReadError(
      'unsupported',
      `unsupported AES parameters (AE-${entry.aes.version}, strength ${entry.aes.strength})`,
      entry.name,
    );
  }
  if (data.length < params.salt + 2 + MAC_LENGTH)
    throw new ZipReadError('corrupt', 'encrypted entry too short', entry.name);
  const salt = data.subarray(0, params.salt);
  const verifier = data.subarray(params.salt, params.salt + 2);
  const cipherText = data.subarray(params.salt + 2, data.length - MAC_LENGTH);
  const mac = data.subarray(data.length - MAC_LENGTH);
  const keys = pbkdf2Sync(Buffer.from(password, 'utf8'), salt, PBKDF2_ITERATIONS, 2 * params.key + 2, 'sha1');
  const aesKey = keys.subarray(0, params.key);
  const macKey = keys.subarray(params.key, 2 * params.key);
  if (!keys.subarray(2 * params.key).equals(verifier))
    throw new ZipReadError('wrong-password', 'password verifier mismatch', entry.name);
  const expected = createHmac('sha1', macKey).update(cipherText).digest().subarray(0, MAC_LENGTH);
  if (!timingSafeEqual(expected, mac))
    throw new ZipReadError('auth-failed', 'authentication code mismatch', entry.name);
  const compressed = aesCtrLittleEndian(aesKey, cipherText);
  let plain: Buffer;
  if (entry.aes.method === METHOD_DEFLATE) {
    try {
      plain = inflateRawSync(compressed);
    } catch {
      throw new ZipReadError('corrupt', 'compressed data is invalid', entry.name);
    }
  } else if (entry.aes.method === METHOD_STORED) {
    plain = compressed;
  } else {
    throw new ZipReadError('unsupported', `unsupported compression method ${entry.aes.method}`, entry.name);
  }
  if (plain.length !== entry.size)
    throw new ZipReadError('corrupt', 'size does not match the directory', entry.name);
  // AE-1 keeps the CRC of the plain data (AE-2 sets it to 0 and relies on the HMAC alone).
  if (entry.aes.version === 1 && crc32(plain) !== entry.crc32)
    throw new ZipReadError('corrupt', 'CRC mismatch', entry.name);
  return plain;
}

/** WinZip's AES-CTR: the 16-byte counter is a little-endian integer starting at 1 (node's CTR mode is big-endian). */
function aesCtrLittleEndian(key: Buffer, input: Buffer): Buffer {
  const out = Buffer.allocUnsafe(input.length);
  const chunk = 64 * 1024; // bytes per keystream batch (a multiple of 16)
  let counter = 1;
  for (let off = 0; off < input.length; off += chunk) {
    const n = Math.min(chunk, input.length - off);
    const blocks = Math.ceil(n / 16);
    const counters = Buffer.alloc(blocks * 16);
    for (let b = 0; b < blocks; b++, counter++) {
      counters.writeUInt32LE(counter % 0x1_0000_0000, b * 16);
      counters.writeUInt32LE(Math.floor(counter / 0x1_0000_0000), b * 16 + 4);
    }
    const ecb = createCipheriv(`aes-${key.length * 8}-ecb`, key, null);
    ecb.setAutoPadding(false);
    const stream = ecb.update(counters);
    for (let i = 0; i < n; i++) out[off + i] = input[off + i] ^ stream[i];
  }
  return out;
}

function findEndOfCentralDirectory(buf: Buffer): number {
  const min = Math.max(0, buf.length - 22 - 0xffff);
  for (let i = buf.length - 22; i >= min; i--) {
    if (buf.readUInt32LE(i) === SIG_EOCD && i + 22 + buf.readUInt16LE(i + 20) === buf.length) return i;
  }
  return -1;
}

function readExtra(extra: Buffer, entry: ZipEntry): void {
  let p = 0;
  while (p + 4 <= extra.length) {
    const id = extra.readUInt16LE(p);
    const len = extra.readUInt16LE(p + 2);
    const body = extra.subarray(p + 4, p + 4 + len);
    if (id === AES_EXTRA_ID && body.length >= 7) {
      entry.aes = {
        version: body.readUInt16LE(0),
        strength: body.readUInt8(4),
        method: body.readUInt16LE(5),
      };
    } else if (id === ZIP64_EXTRA_ID) {
      // Only the fields that are 0xFFFFFFFF in the record are present, in this order.
      let q = 0;
      const next = (): number | undefined => {
        if (q + 8 > body.length) return undefined;
        q += 8;
        return readU64(body, q - 8);
      };
      if (entry.size === 0xffffffff) entry.size = next() ?? entry.size;
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next() ?? entry.compressedSize;
      if (entry.localHeaderOffset === 0xffffffff) entry.localHeaderOffset = next() ?? entry.localHeaderOffset;
    }
    p += 4 + len;
  }
}

function readU64(buf: Buffer, at: number): number {
  const v = buf.readBigUInt64LE(at);
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new ZipReadError('corrupt', 'ZIP64 value out of range');
  return Number(v);
}

let CRC_TABLE: Uint32Array | undefined;

/** CRC-32 (IEEE), as ZIP uses it. */
export function crc32(data: Buffer): number {
  if (!CRC_TABLE) {
    CRC_TABLE = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      CRC_TABLE[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = CRC_TABLE[(crc ^ data[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
