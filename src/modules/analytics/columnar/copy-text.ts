import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/**
 * PostgreSQL's COPY text format, read as a stream: one row per line, fields split by tabs, `\N` for NULL,
 * and the backslash sequences COPY TO writes (it never writes octal or hex ones).
 */

const ESCAPES: Readonly<Record<string, string>> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };

export function copyField(raw: string): string | null {
  if (raw === '\\N') return null;
  if (!raw.includes('\\')) return raw;
  return raw.replace(/\\(.)/gs, (_, c: string) => ESCAPES[c] ?? c);
}

/** Calls `row` with each line's fields (decoded) as the stream delivers them; resolves at its end. */
export async function readCopyRows(stream: Readable, row: (fields: Array<string | null>) => void): Promise<void> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  const lines = (text: string) => {
    let start = 0;
    for (let end = text.indexOf('\n', start); end !== -1; end = text.indexOf('\n', start)) {
      row(text.slice(start, end).split('\t').map(copyField));
      start = end + 1;
    }
    return text.slice(start);
  };
  for await (const chunk of stream) rest = lines(rest + decoder.write(chunk as Buffer));
  rest = lines(rest + decoder.end());
  if (rest.length > 0) row(rest.split('\t').map(copyField));
}
