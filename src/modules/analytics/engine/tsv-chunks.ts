import { Readable } from 'node:stream';

/**
 * TabSeparated text cut into pieces of about `maxBytes` that end on a row boundary (a raw newline ends a
 * row in that format: newlines inside values are escaped), so each piece is a valid insert of its own.
 */
export async function* tsvChunks(source: NodeJS.ReadableStream, maxBytes = 8 * 1024 * 1024): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let size = 0;
  for await (const part of source as AsyncIterable<Buffer | string>) {
    const chunk = typeof part === 'string' ? Buffer.from(part) : part;
    pending.push(chunk);
    size += chunk.length;
    if (size < maxBytes) continue;
    const joined = Buffer.concat(pending);
    const end = joined.lastIndexOf(0x0a) + 1;
    if (end === 0) continue;
    yield joined.subarray(0, end);
    pending = [joined.subarray(end)];
    size = pending[0].length;
  }
  const rest = Buffer.concat(pending);
  if (rest.length > 0) yield rest;
}

/**
 * The stream as a Readable, or null when it holds no bytes: a server refuses an INSERT without data
 * (NO_DATA_TO_INSERT), and a refresh often has no rows for some table.
 */
export async function nonEmpty(source: NodeJS.ReadableStream): Promise<Readable | null> {
  const iterator = (source as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
  let first = await iterator.next();
  while (!first.done && first.value.length === 0) first = await iterator.next();
  if (first.done) return null;
  const head = first.value;
  return Readable.from((async function* () {
    yield head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  })(), { objectMode: false });
}
