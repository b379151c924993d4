import { createHash } from 'node:crypto';
import fc from 'fast-check';
import {
  generatePersonalApiKey,
  generateProjectApiKey,
  hashPersonalApiKey,
  maskKey,
  randomBase62,
} from '../../src/common/crypto/tokens';

const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe(randomBase62.name, () => {
  it('returns an empty string for length 0', () => {
    expect(randomBase62(0)).toBe('');
  });

  it('yields only base62 characters, exactly `length` of them', () => {
    fc.assert(
      fc.property(fc.nat({ max: 300 }), (length) => {
        expect(randomBase62(length)).toMatch(new RegExp(`^[0-9A-Za-z]{${length}}$`));
      }),
    );
  });

  it('uses every character of the alphabet over many draws', () => {
    const seen = new Set(randomBase62(20_000));
    expect([...seen].sort().join('')).toBe([...BASE62_ALPHABET].sort().join(''));
  });

  it('does not favour any character (each within ±15% of the uniform share)', () => {
    // ~2000 draws per character (σ ≈ 44), so ±300 never trips by chance, while a plain
    // `byte % 62` without rejection would give the first 8 characters ~21% more than their share.
    const counts = new Map<string, number>();
    for (const char of randomBase62(124_000)) counts.set(char, (counts.get(char) ?? 0) + 1);
    const outliers = [...counts].filter(([, n]) => n < 1700 || n > 2300);
    expect(outliers).toEqual([]);
  });
});

describe.each([
  [generateProjectApiKey.name, generateProjectApiKey, 'phc_'],
  [generatePersonalApiKey.name, generatePersonalApiKey, 'phx_'],
])('%s', (_name, generate, prefix) => {
  it(`returns "${prefix}" followed by 43 base62 characters`, () => {
    expect(generate()).toMatch(new RegExp(`^${prefix}[0-9A-Za-z]{43}$`));
  });

  it('returns 47 characters in total', () => {
    expect(generate()).toHaveLength(47);
  });

  it('returns a different key on every call', () => {
    const keys = new Set(Array.from({ length: 200 }, () => generate()));
    expect(keys.size).toBe(200);
  });
});

describe(hashPersonalApiKey.name, () => {
  it('returns "sha256$" followed by 64 lowercase hex digits', () => {
    expect(hashPersonalApiKey('phx_example')).toMatch(/^sha256\$[0-9a-f]{64}$/);
  });

  it('hashes a known value to its known SHA-256 digest', () => {
    expect(hashPersonalApiKey('abc')).toBe('sha256$ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('hashes the empty string to the SHA-256 of nothing', () => {
    expect(hashPersonalApiKey('')).toBe('sha256$e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('is deterministic', () => {
    const key = generatePersonalApiKey();
    expect(hashPersonalApiKey(key)).toBe(hashPersonalApiKey(key));
  });

  it('hashes different keys differently', () => {
    expect(hashPersonalApiKey('phx_a')).not.toBe(hashPersonalApiKey('phx_b'));
  });

  it("equals node's SHA-256 of the UTF-8 bytes for any string", () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (key) => {
        const expected = createHash('sha256').update(Buffer.from(key, 'utf8')).digest('hex');
        expect(hashPersonalApiKey(key)).toBe(`sha256$${expected}`);
      }),
    );
  });
});

describe(maskKey.name, () => {
  it('shows the first and last four characters of a long key', () => {
    expect(maskKey('phx_0123456789abcd')).toBe('phx_...abcd');
  });

  it('masks a generated personal key as phx_...<last 4>', () => {
    const key = generatePersonalApiKey();
    expect(maskKey(key)).toBe(`phx_...${key.slice(-4)}`);
  });

  it('shows the ends of a key of exactly 16 characters', () => {
    expect(maskKey('0123456789ABCDEF')).toBe('0123...CDEF');
  });

  it('hides a key of 15 characters completely', () => {
    expect(maskKey('0123456789ABCDE')).toBe('********');
  });

  it('hides an empty key completely', () => {
    expect(maskKey('')).toBe('********');
  });

  it('never reveals more than 8 characters of any key', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (key) => {
        const masked = maskKey(key);
        expect(masked).toBe(key.length < 16 ? '********' : `${key.slice(0, 4)}...${key.slice(-4)}`);
        expect(masked).toHaveLength(key.length < 16 ? 8 : 11);
      }),
    );
  });
});
