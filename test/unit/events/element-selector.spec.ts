import { parseSelector } from '../../../src/kernel/element-selector';

describe('parseSelector', () => {
  it('reads the clicked end first, with tag, classes, id, attributes and positions', () => {
    expect(parseSelector('div.hero > button.btn.primary#go[data-attr="buy now"]:nth-child(2)')).toEqual([
      { tag: 'button', classes: ['btn', 'primary'], attributes: [['data-attr', 'buy now'], ['nth-child', '2'], ['attr_id', 'go']], directParent: false },
      { tag: 'div', classes: ['hero'], attributes: [], directParent: true },
    ]);
  });

  it('tells a descendant from a direct parent, and reads [id] and a `> * >` as PostHog does', () => {
    expect(parseSelector('nav a').map((part) => [part.tag, part.directParent])).toEqual([['a', false], ['nav', false]]);
    expect(parseSelector('[id="x"]')).toEqual([{ tag: null, classes: [], attributes: [['attr_id', 'x']], directParent: false }]);
    expect(parseSelector('li > * > a').map((part) => [part.tag, part.directParent])).toEqual([['a', false], ['li', false]]);
  });

  it('keeps dots inside brackets in a class and spaces inside quoted attribute values', () => {
    expect(parseSelector('div.shadow-[0_4px_rgba(0,0,0,0.1)].text-blue')[0].classes).toEqual(['shadow-[0_4px_rgba(0,0,0,0.1)]', 'text-blue']);
    expect(parseSelector('a[title="two words"]')[0].attributes).toEqual([['title', 'two words']]);
  });

  it('has no part for an empty selector', () => {
    expect(parseSelector('  ')).toEqual([]);
  });
});
