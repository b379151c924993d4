import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * Names of documents that were never part of this repository: a comment or doc that cites one leaves its reader
 * with nothing to open. State the rule and its reason instead, or link PostHog's source.
 */
const OUTSIDE_DOCUMENTS = /reference\/[a-z-]+\.md|\bCONTRACT(\.md)?\b|\bSPEC\.md\b|\.\.\/shared\/|§\s?\d/;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe('the repository stands alone', () => {
  it('cites no document outside it, in sources, tests, docs or the README', () => {
    const self = relative(ROOT, __filename);
    const checked = [...files(join(ROOT, 'src')), ...files(join(ROOT, 'test')), ...files(join(ROOT, 'docs')), ...files(join(ROOT, 'docker')), join(ROOT, 'README.md')]
      .filter((path) => relative(ROOT, path) !== self && /\.(ts|tsx|js|cjs|mjs|md|json|yml|css|html|sh)$|Dockerfile/.test(path));
    const citing = checked.flatMap((path) =>
      readFileSync(path, 'utf8')
        .split('\n')
        .flatMap((line, i) => (OUTSIDE_DOCUMENTS.test(line) ? [`${relative(ROOT, path)}:${i + 1}: ${line.trim().slice(0, 120)}`] : [])),
    );
    expect(checked.length).toBeGreaterThan(500);
    expect(citing).toEqual([]);
  });
});
