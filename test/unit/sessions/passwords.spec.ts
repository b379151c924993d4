import { generatedPassword, hashPassword, passwordProblem, verifyPassword } from '../../../src/modules/sessions/passwords';

describe('passwords', () => {
  it('verifies the password a hash was made from, and nothing else', async () => {
    const stored = await hashPassword('correct horse');
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct horsE', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('salts each hash, and refuses a stored text of another scheme', async () => {
    expect(await hashPassword('same')).not.toBe(await hashPassword('same'));
    expect(await verifyPassword('x', 'bcrypt$whatever')).toBe(false);
    expect(await verifyPassword('x', '')).toBe(false);
  });

  it('names what is wrong with a new password', () => {
    expect(passwordProblem('seven77')).toBe('A password needs at least 8 characters.');
    expect(passwordProblem('eight888')).toBeNull();
    expect(passwordProblem('x'.repeat(1001))).toBe('A password has at most 1000 characters.');
  });

  it('generates passwords of 24 URL-safe characters', () => {
    expect(generatedPassword()).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(generatedPassword()).not.toBe(generatedPassword());
  });
});
