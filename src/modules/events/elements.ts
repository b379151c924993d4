/** One autocapture element as PostHog's ElementSerializer renders it. */
export interface ElementJson {
  event: null;
  text: string | null;
  tag_name: string | null;
  attr_class: string[] | null;
  href: string | null;
  attr_id: string | null;
  nth_child: number | null;
  nth_of_type: number | null;
  attributes: Record<string, string>;
  order: number;
}

/** Elements of a chain: runs of non-space, non-`;` characters, where quoted values may hold anything. */
const ELEMENT = /(?:[^\s;"]|"(?:\\.|[^"])*")+/g;
const ATTRIBUTE = /([^=\s"]+)="((?:\\.|[^"])*)"/g;

function unescape(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

function headAndAttributes(element: string): [string, string] {
  let quoted = false;
  for (let i = 0; i < element.length; i++) {
    const c = element[i];
    if (c === '\\' && quoted) i++;
    else if (c === '"') quoted = !quoted;
    else if (c === ':' && !quoted) return [element.slice(0, i), element.slice(i + 1)];
  }
  return [element, ''];
}

function integer(value: string | undefined): number | null {
  return value !== undefined && /^\d{1,9}$/.test(value) ? Number(value) : null;
}

function parseElement(element: string, order: number): ElementJson {
  const [head, tail] = headAndAttributes(element);
  const [tag, ...classes] = head.split('.');
  const found = new Map<string, string>();
  const attributes: Record<string, string> = {};
  for (const [, key, raw] of tail.matchAll(ATTRIBUTE)) {
    const value = unescape(raw);
    found.set(key, value);
    if (key.startsWith('attr__')) attributes[key] = value;
  }
  return {
    event: null,
    text: found.get('text') ?? null,
    tag_name: tag || null,
    attr_class: classes.length ? classes.filter(Boolean) : null,
    href: found.get('href') ?? null,
    attr_id: found.get('attr_id') ?? null,
    nth_child: integer(found.get('nth-child')),
    nth_of_type: integer(found.get('nth-of-type')),
    attributes,
    order,
  };
}

/** PostHog's `elements_chain` string back into its element list (`[]` for an empty chain). */
export function parseElementsChain(chain: string): ElementJson[] {
  return (chain.match(ELEMENT) ?? []).map(parseElement);
}
