/**
 * Reads ZIP archives whose entries are encrypted with WinZip AES (AE-1 and AE-2, 128/192/256-bit), the
 * format that archiver-zip-encrypted writes and 7-Zip, WinZip and macOS Archive Utility read. Everything is
 * node:crypto: PBKDF2-HMAC-SHA1 (1000 iterations) derives the AES key, the HMAC-SHA1 key and a 2-byte
 * password verifier; data is AES-CTR with a little-endian counter starting at 1; the last 10 bytes of an
 * entry are the HMAC-SHA1 of the ciphertext. Spec: https://www.winzip.com/en/support/aes-encryption/
 *
 * {@link ZipFile} reads an archive on disk piece by piece under {@link ZipLimits} (file size, entries, each
 * entry's and the total uncompressed size, all checked before anything is inflated) and streams an entry's
 * plain bytes, stopping as soon as it inflates past its declared size (a ZIP bomb); {@link readZipDirectory}
 * and {@link readZipEntry} read an archive held in memory. ZIP64 directories are understood.
 */
import { createCipheriv, createHmac, pbkdf2Sync, timingSafeEqual } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { Readable } from 'node:stream';
import { createInflateRaw, inflateRawSync } from 'node:zlib';

/** Why an archive could not be read; the caller turns it into one sentence for a person. */
export type ZipFailure =
  | 'not-zip'
  | 'truncated'
  | 'not-encrypted'
  | 'unsupported'
  | 'wrong-password'
  | 'auth-failed'
  | 'corrupt'
  | 'too-large';

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

/** Reads the central directory of an archive held in memory: every entry's name, sizes, offsets and AES parameters. */
export function readZipDirectory(buf: Buffer): ZipEntry[] {
  return parseDirectory((offset, length) => buf.subarray(offset, offset + length), buf.length);
}

/** The central directory through `read(offset, length)` (which returns fewer bytes past the end), under `limits`. */
function parseDirectory(
  read: (offset: number, length: number) => Buffer,
  size: number,
  limits?: ZipLimits,
): ZipEntry[] {
  const first4 = size >= 4 ? read(0, 4).readUInt32LE(0) : 0;
  if (size < 22) throw new ZipReadError(first4 === SIG_LOCAL ? 'truncated' : 'not-zip', 'no ZIP end record');
  const tailStart = Math.max(0, size - 22 - 0xffff);
  const tail = read(tailStart, size - tailStart);
  const at = findEndOfCentralDirectory(tail);
  if (at < 0) throw new ZipReadError(first4 === SIG_LOCAL ? 'truncated' : 'not-zip', 'no ZIP end record');
  const eocd = tailStart + at;
  let count = tail.readUInt16LE(at + 10);
  let cdSize = tail.readUInt32LE(at + 12);
  let cdOffset = tail.readUInt32LE(at + 16);
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    const loc = eocd - 20;
    const locator = loc >= 0 ? read(loc, 20) : Buffer.alloc(0);
    if (locator.length < 20 || locator.readUInt32LE(0) !== SIG_ZIP64_LOCATOR)
      throw new ZipReadError('corrupt', 'ZIP64 locator missing');
    const z64 = readU64(locator, 8);
    const rec = read(z64, 56);
    if (rec.length < 56 || rec.readUInt32LE(0) !== SIG_ZIP64_EOCD)
      throw new ZipReadError('corrupt', 'ZIP64 end record missing');
    count = readU64(rec, 32);
    cdSize = readU64(rec, 40);
    cdOffset = readU64(rec, 48);
  }
  if (limits && count > limits.maxEntries)
    throw new ZipReadError('too-large', `${count} entries, more than ${limits.maxEntries}`);
  if (cdOffset + cdSize > size)
    throw new ZipReadError('truncated', 'central directory beyond the end of the file');
  if (limits && cdSize > limits.maxEntries * (46 + 3 * 0xffff))
    throw new ZipReadError('too-large', 'the central directory is larger than its entries allow');
  const buf = read(cdOffset, cdSize);
  const entries: ZipEntry[] = [];
  let total = 0;
  let p = 0;
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
    if (limits) {
      if (entry.size > limits.maxEntryBytes)
        throw new ZipReadError('too-large', `${entry.name} inflates to ${entry.size} bytes`, entry.name);
      total += entry.size;
      if (total > limits.maxTotalBytes)
        throw new ZipReadError('too-large', `the entries inflate to more than ${limits.maxTotalBytes} bytes`);
    }
    entries.push(entry);
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/** The AES parameters of an entry, or why it cannot be decrypted. */
function aesParams(entry: ZipEntry): {
  params: { key: number; salt: number };
  aes: NonNullable<ZipEntry['aes']>;
} {
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
  return { params, aes: entry.aes };
}

/** PBKDF2-HMAC-SHA1 (1000 iterations): the AES key, the HMAC key and the 2-byte password verifier. */
function deriveKeys(
  password: string,
  salt: Buffer,
  keyLength: number,
): { aesKey: Buffer; macKey: Buffer; verifier: Buffer } {
  const keys = pbkdf2Sync(Buffer.from(password, 'utf8'), salt, PBKDF2_ITERATIONS, 2 * keyLength + 2, 'sha1');
  return {
    aesKey: keys.subarray(0, keyLength),
    macKey: keys.subarray(keyLength, 2 * keyLength),
    verifier: keys.subarray(2 * keyLength),
  };
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
  const { params, aes } = aesParams(entry);
  if (data.length < params.salt + 2 + MAC_LENGTH)
    throw new ZipReadError('corrupt', 'encrypted entry too short', entry.name);
  const salt = data.subarray(0, params.salt);
  const verifier = data.subarray(params.salt, params.salt + 2);
  const cipherText = data.subarray(params.salt + 2, data.length - MAC_LENGTH);
  const mac = data.subarray(data.length - MAC_LENGTH);
  const { aesKey, macKey, verifier: expectedVerifier } = deriveKeys(password, salt, params.key);
  if (!expectedVerifier.equals(verifier))
    throw new ZipReadError('wrong-password', 'password verifier mismatch', entry.name);
  const expected = createHmac('sha1', macKey).update(cipherText).digest().subarray(0, MAC_LENGTH);
  if (!timingSafeEqual(expected, mac))
    throw new ZipReadError('auth-failed', 'authentication code mismatch', entry.name);
  const compressed = aesCtrLittleEndian(aesKey, cipherText, 1);
  let plain: Buffer;
  if (aes.method === METHOD_DEFLATE) {
    try {
      plain = inflateRawSync(compressed);
    } catch {
      throw new ZipReadError('corrupt', 'compressed data is invalid', entry.name);
    }
  } else if (aes.method === METHOD_STORED) {
    plain = compressed;
  } else {
    throw new ZipReadError('unsupported', `unsupported compression method ${aes.method}`, entry.name);
  }
  if (plain.length !== entry.size)
    throw new ZipReadError('corrupt', 'size does not match the directory', entry.name);
  // AE-1 keeps the CRC of the plain data (AE-2 sets it to 0 and relies on the HMAC alone).
  if (aes.version === 1 && crc32(plain) !== entry.crc32)
    throw new ZipReadError('corrupt', 'CRC mismatch', entry.name);
  return plain;
}

/** WinZip's AES-CTR: the 16-byte counter is a little-endian integer starting at 1 (node's CTR mode is big-endian); `counter` is the block's number. */
function aesCtrLittleEndian(key: Buffer, input: Buffer, counter: number): Buffer {
  const out = Buffer.allocUnsafe(input.length);
  const chunk = 64 * 1024; // bytes per keystream batch (a multiple of 16)
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

/** The end record's offset in `buf` (the file's tail), or -1. */
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
  return (crc32Update(0xffffffff, data) ^ 0xffffffff) >>> 0;
}

/** CRC-32 over one more piece: start with 0xffffffff, finish with `^ 0xffffffff`. */
function crc32Update(crc: number, data: Buffer): number {
  if (!CRC_TABLE) crc32(Buffer.alloc(0));
  const table = CRC_TABLE!;
  for (let i = 0; i < data.length; i++) crc = table[(crc ^ data[i]) & 0xff] ^ (crc >>> 8);
  return crc;
}

// ---------------------------------------------------------------- streaming, with limits (backups are untrusted input)

/** Bounds on what a backup may make Mnemo read and inflate; each is checked before the bytes are read. */
export interface ZipLimits {
  /** The archive file itself. */
  maxFileBytes: number;
  /** Entries in the central directory. */
  maxEntries: number;
  /** The uncompressed size of one entry. */
  maxEntryBytes: number;
  /** The uncompressed size of all entries together (a ZIP bomb declares small and inflates large, or declares large). */
  maxTotalBytes: number;
}

/** A ZIP archive on disk, read through a file descriptor piece by piece: never held in memory whole. */
export class ZipFile {
  private constructor(
    private readonly fd: number,
    readonly size: number,
    readonly entries: ZipEntry[],
  ) {}

  /** Opens an archive and reads its central directory; throws a {@link ZipReadError} ('too-large' for a limit). */
  static open(file: string, limits: ZipLimits): ZipFile {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      if (size > limits.maxFileBytes)
        throw new ZipReadError('too-large', `the file has ${size} bytes, more than ${limits.maxFileBytes}`);
      const read = (offset: number, length: number): Buffer => readAt(fd, size, offset, length);
      const entries = parseDirectory(read, size, limits);
      return new ZipFile(fd, size, entries);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  }

  entry(name: string): ZipEntry | undefined {
    return this.entries.find((e) => e.name === name);
  }

  /**
   * The plain bytes of an entry, in pieces: the password and the authentication code are checked over the
   * whole ciphertext first (nothing unauthenticated is inflated), then it is decrypted and inflated as a
   * stream that stops as soon as it produces more than the directory declared.
   */
  async *read(entry: ZipEntry, password: string): AsyncGenerator<Buffer> {
    const read = (offset: number, length: number): Buffer => readAt(this.fd, this.size, offset, length);
    const lhBuf = read(entry.localHeaderOffset, 30);
    if (lhBuf.length < 30 || lhBuf.readUInt32LE(0) !== SIG_LOCAL)
      throw new ZipReadError('corrupt', 'bad local header', entry.name);
    const start = entry.localHeaderOffset + 30 + lhBuf.readUInt16LE(26) + lhBuf.readUInt16LE(28);
    if (start + entry.compressedSize > this.size)
      throw new ZipReadError('truncated', 'entry data beyond the end of the file', entry.name);
    const { params, aes } = aesParams(entry);
    if (entry.compressedSize < params.salt + 2 + MAC_LENGTH)
      throw new ZipReadError('corrupt', 'encrypted entry too short', entry.name);
    const head = read(start, params.salt + 2);
    const keys = deriveKeys(password, head.subarray(0, params.salt), params.key);
    if (!keys.verifier.equals(head.subarray(params.salt)))
      throw new ZipReadError('wrong-password', 'password verifier mismatch', entry.name);
    const cipherStart = start + params.salt + 2;
    const cipherLength = entry.compressedSize - params.salt - 2 - MAC_LENGTH;
    const hmac = createHmac('sha1', keys.macKey);
    for (let off = 0; off < cipherLength; off += READ_CHUNK)
      hmac.update(read(cipherStart + off, Math.min(READ_CHUNK, cipherLength - off)));
    const mac = read(cipherStart + cipherLength, MAC_LENGTH);
    if (!timingSafeEqual(hmac.digest().subarray(0, MAC_LENGTH), mac))
      throw new ZipReadError('auth-failed', 'authentication code mismatch', entry.name);
    const fd = this.fd;
    const size = this.size;
    function* decrypted(): Generator<Buffer> {
      for (let off = 0; off < cipherLength; off += READ_CHUNK)
        yield aesCtrLittleEndian(
          keys.aesKey,
          readAt(fd, size, cipherStart + off, Math.min(READ_CHUNK, cipherLength - off)),
          1 + off / 16,
        );
    }
    let produced = 0;
    let crc = 0xffffffff;
    const take = (chunk: Buffer): Buffer => {
      produced += chunk.length;
      if (produced > entry.size)
        throw new ZipReadError('too-large', 'inflates to more than the directory declares', entry.name);
      if (aes.version === 1) crc = crc32Update(crc, chunk);
      return chunk;
    };
    if (aes.method === METHOD_STORED) {
      for (const chunk of decrypted()) yield take(chunk);
    } else if (aes.method === METHOD_DEFLATE) {
      const inflate = createInflateRaw({ chunkSize: 64 * 1024 });
      const source = Readable.from(decrypted(), { objectMode: false });
      source.on('error', (e) => inflate.destroy(e));
      source.pipe(inflate);
      try {
        for await (const chunk of inflate as AsyncIterable<Buffer>) yield take(chunk);
      } catch (e) {
        if (e instanceof ZipReadError) throw e;
        throw new ZipReadError('corrupt', 'compressed data is invalid', entry.name);
      } finally {
        source.destroy();
        inflate.destroy();
      }
    } else {
      throw new ZipReadError('unsupported', `unsupported compression method ${aes.method}`, entry.name);
    }
    if (produced !== entry.size)
      throw new ZipReadError('corrupt', 'size does not match the directory', entry.name);
    if (aes.version === 1 && (crc ^ 0xffffffff) >>> 0 !== entry.crc32)
      throw new ZipReadError('corrupt', 'CRC mismatch', entry.name);
  }

  /** The whole plain entry, for small ones (the manifest); refused beyond `maxBytes`. */
  async readAll(entry: ZipEntry, password: string, maxBytes: number): Promise<Buffer> {
    if (entry.size > maxBytes)
      throw new ZipReadError('too-large', `${entry.name} declares ${entry.size} bytes`, entry.name);
    const parts: Buffer[] = [];
    for await (const chunk of this.read(entry, password)) parts.push(chunk);
    return Buffer.concat(parts);
  }

  close(): void {
    closeSync(this.fd);
  }
}

const READ_CHUNK = 1024 * 1024; // a multiple of 16 (AES blocks)

function readAt(fd: number, size: number, offset: number, length: number): Buffer {
  const n = Math.max(0, Math.min(length, size - offset));
  const buf = Buffer.allocUnsafe(n);
  let got = 0;
  while (got < n) {
    const r = readSync(fd, buf, got, n - got, offset + got);
    if (r === 0) break;
    got += r;
  }
  return got === n ? buf : buf.subarray(0, got);
}
