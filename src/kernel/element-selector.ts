/**
 * A CSS selector as PostHog matches it against an autocapture event's elements (`div > a.btn[data-attr="go"]`,
 * `#signup`, `li:nth-child(2)`): one part per compound selector, innermost (the clicked end) first, each naming
 * a tag, classes and attributes as the elements chain writes them (`attr_id`, `nth-child`, `nth-of-type`, any
 * other attribute by its own name). What this reads follows PostHog's Selector class
 * (https://github.com/PostHog/posthog/blob/master/posthog/models/element/element.py); pseudo-classes other
 * than the positional ones stay in the tag, which then names no element, so they match nothing, as there.
 */
export interface SelectorPart {
  /** null for none or `*`: any element. */
  tag: string | null;
  classes: string[];
  /** `[key, value]` as the chain holds them. */
  attributes: Array<[string, string]>;
  /** This part is the direct parent of the part before it (`>`), not any ancestor. */
  directParent: boolean;
}

const ATTRIBUTE = /\[\s*([^\]\s=]+)\s*=\s*(['"])(.*?)\2\s*\]/g;
const POSITIONAL = /:(nth-child|nth-of-type)\((\d+)\)/g;
const ID = /#([^.#[\]:]+)/g;
/** Dots outside square brackets (Tailwind classes such as `shadow-[0_4px_rgba(0,0,0,0.1)]` keep theirs). */
const CLASS_DOT = /\.(?![^[]*\])/;

/** Splits at spaces outside attribute brackets and quotes. */
function compounds(selector: string): string[] {
  const parts: string[] = [];
  let current = '';
  let bracket = false;
  let quote: string | null = null;
  for (const char of selector) {
    if (quote === null && char === '[') bracket = true;
    if (quote === null && char === ']') bracket = false;
    if (char === '"' || char === "'") quote = quote === null ? char : quote === char ? null : quote;
    if (char === ' ' && !bracket && quote === null) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts;
}

function parsePart(text: string, directParent: boolean): SelectorPart {
  const attributes: Array<[string, string]> = [];
  let rest = text.replace(ATTRIBUTE, (_, key: string, __, value: string) => {
    attributes.push([key === 'id' ? 'attr_id' : key, value]);
    return '';
  });
  rest = rest.replace(POSITIONAL, (_, which: string, position: string) => {
    attributes.push([which, position]);
    return '';
  });
  // An id may stand anywhere in the compound (`a#go.btn`, `a.btn#go`); no class holds a `#`.
  rest = rest.replace(ID, (_, id: string) => {
    attributes.push(['attr_id', id]);
    return '';
  });
  const [tag, ...classes] = rest.split(CLASS_DOT);
  return { tag: tag === '' || tag === '*' ? null : tag, classes: classes.filter((c) => c !== ''), attributes, directParent };
}

/** The selector's parts, innermost first. */
export function parseSelector(selector: string): SelectorPart[] {
  // `> *` adds nothing; `\:` is a colon written for CSS, which the chain holds bare.
  const cleaned = selector.replace(/> \* > /g, '').replace(/> \*/g, '').replace(/\\:/g, ':').trim();
  const tokens = compounds(cleaned).reverse();
  const parts: SelectorPart[] = [];
  tokens.forEach((token, index) => {
    if (token === '>' || token === '') return;
    parts.push(parsePart(token, index > 0 && tokens[index - 1] === '>'));
  });
  return parts;
}
