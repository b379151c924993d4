import { scramVerifier, verifierMatches } from '../../../src/database/embedded-role';

/** What PostgreSQL 17 stored for `CREATE ROLE … PASSWORD 'pencil'` (password_encryption = scram-sha-256). */
const POSTGRES_VERIFIER =
  'SCRAM-SHA-256$4096:8lg5Ort0uuoqBEkT3E4C4g==$brfmuncE0QJiDXMxXuyziG5qA515nDSOSxjA5RUA0+I=:E14bK7JHr7d68NzxX2oLTQa3ARSuw/knOzfXHNdd2P8=';

describe(scramVerifier.name, () => {
  it('computes what PostgreSQL stores for the same password, salt and iteration count', () => {
    expect(scramVerifier('pencil', Buffer.from('8lg5Ort0uuoqBEkT3E4C4g==', 'base64'), 4096)).toBe(POSTGRES_VERIFIER);
  });

  it('salts each verifier afresh', () => {
    expect(scramVerifier('pencil')).not.toBe(scramVerifier('pencil'));
  });
});

describe(verifierMatches.name, () => {
  it('recognises the password of a stored verifier, whatever its salt', () => {
    expect(verifierMatches(POSTGRES_VERIFIER, 'pencil')).toBe(true);
    expect(verifierMatches(scramVerifier('pencil'), 'pencil')).toBe(true);
  });

  it('refuses another password, an MD5 hash and no password at all', () => {
    expect(verifierMatches(POSTGRES_VERIFIER, 'pencils')).toBe(false);
    expect(verifierMatches('md5' + 'a'.repeat(32), 'pencil')).toBe(false);
    expect(verifierMatches(null, 'pencil')).toBe(false);
  });
});
