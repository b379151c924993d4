type Bag = Record<string, unknown>;

function escapeQuotes(value: string): string {
  return value.replace(/"/g, '\\"');
}

/**
 * posthog-js autocapture's `$elements` array → PostHog's `elements_chain` string
 * (`tag.class1.class2:attr__href="…"href="…"nth-child="1"nth-of-type="2"text="…"`, elements joined by `;`).
 */
export function elementsToChain(elements: unknown[]): string {
  return elements
    .filter((element): element is Bag => element !== null && typeof element === 'object')
    .map((element) => {
      const tag = typeof element.tag_name === 'string' ? element.tag_name : '';
      const classes = Array.isArray(element.attr__class)
        ? element.attr__class
        : typeof element.attr__class === 'string'
          ? element.attr__class.split(' ')
          : Array.isArray(element.classes)
            ? element.classes
            : [];
      const head = [tag, ...classes.filter((c): c is string => typeof c === 'string' && c !== '')].join('.');
      const attributes: string[] = [];
      if (typeof element.$el_text === 'string') attributes.push(`text="${escapeQuotes(element.$el_text)}"`);
      if (typeof element.attr__href === 'string') attributes.push(`href="${escapeQuotes(element.attr__href)}"`);
      if (typeof element.attr__id === 'string') attributes.push(`attr_id="${escapeQuotes(element.attr__id)}"`);
      if (typeof element.nth_child === 'number') attributes.push(`nth-child="${element.nth_child}"`);
      if (typeof element.nth_of_type === 'number') attributes.push(`nth-of-type="${element.nth_of_type}"`);
      for (const [key, value] of Object.entries(element)) {
        if (key.startsWith('attr__') && typeof value === 'string') attributes.push(`${key}="${escapeQuotes(value)}"`);
      }
      return `${head}:${attributes.sort().join('')}`;
    })
    .join(';');
}
