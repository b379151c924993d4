import { defaultState, fromQuery, KINDS, switchKind, toQuery, type EditorState } from '../../../src/console/insights/insight-query';
import { flagProblem, blankFlag, rolloutSummary } from '../../../src/console/pages/feature-flag-model';
import { periodsSeen } from '../../../src/console/insights/retention-periods';

describe('console insight query', () => {
  const edited: EditorState = {
    kind: 'TrendsQuery',
    events: ['$pageview', 'signed_up'],
    properties: [{ key: '$browser', operator: 'exact', value: 'Chrome', type: 'event' }],
    breakdown: { property: 'plan', type: 'person' },
    dateFrom: '-30d',
    interval: 'week',
    display: 'ActionsBar',
  };

  it('builds the InsightVizNode a script would post to /query/', () => {
    expect(toQuery(edited)).toEqual({
      kind: 'InsightVizNode',
      source: {
        kind: 'TrendsQuery',
        series: [
          { kind: 'EventsNode', event: '$pageview', name: '$pageview', math: 'total' },
          { kind: 'EventsNode', event: 'signed_up', name: 'signed_up', math: 'total' },
        ],
        interval: 'week',
        dateRange: { date_from: '-30d' },
        properties: [{ key: '$browser', operator: 'exact', value: 'Chrome', type: 'event' }],
        trendsFilter: { display: 'ActionsBar' },
        breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' },
      },
    });
  });

  it('reads back every kind it builds', () => {
    for (const [kind] of KINDS) {
      const state = switchKind(edited, kind);
      const back = fromQuery(toQuery(state));
      expect({ kind, back: toQuery(back) }).toEqual({ kind, back: toQuery(state) });
    }
  });

  it('retention reads its start and return events from the retention filter', () => {
    const state = { ...switchKind(defaultState(), 'RetentionQuery'), events: ['signed_up', 'paid'] };
    expect(toQuery(state).source).toMatchObject({ retentionFilter: { targetEntity: { id: 'signed_up' }, returningEntity: { id: 'paid' } } });
    expect(fromQuery(toQuery(state)).events).toEqual(['signed_up', 'paid']);
  });

  it('switching kinds fills the slots the new kind needs and drops a breakdown it cannot show', () => {
    expect(switchKind(defaultState(), 'FunnelsQuery').events).toEqual(['$pageview', '$pageview']);
    expect(switchKind(edited, 'LifecycleQuery')).toMatchObject({ events: ['$pageview'], breakdown: null });
    expect(switchKind(edited, 'FunnelsQuery').breakdown).toEqual(edited.breakdown);
  });

  it('a query the editor cannot read falls back to the defaults, field by field', () => {
    expect(fromQuery(null)).toEqual(defaultState());
    expect(fromQuery({ kind: 'InsightVizNode', source: { kind: 'HogQLQuery', interval: 'fortnight' } })).toEqual(defaultState());
  });
});

describe('console flag model', () => {
  it('names what keeps a flag from saving', () => {
    expect(flagProblem({ ...blankFlag(), key: 'new checkout' })).toBe('The key may hold only letters, numbers, hyphens and underscores.');
    const split = { ...blankFlag(), key: 'exp', filters: { groups: [], multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 40 }] } } };
    expect(flagProblem(split)).toBe("The variants' rollout percentages add up to 90; they must add up to 100.");
    expect(flagProblem({ ...blankFlag(), key: 'ok_flag-1' })).toBeNull();
  });

  it('summarises a rollout', () => {
    expect(rolloutSummary(blankFlag())).toBe('100% of everyone');
    const flag = { ...blankFlag(), filters: { groups: [{ properties: [], rollout_percentage: 10 }, { properties: [], rollout_percentage: 20 }], multivariate: { variants: [{ key: 'a', rollout_percentage: 100 }] } } };
    expect(rolloutSummary(flag)).toBe('2 conditions; variants a 100%');
  });
});

describe('console retention grid', () => {
  const row = (breakdown_value?: string) => ({ date: '', label: '', values: [{ count: 1 }, { count: 1 }, { count: 1 }], ...(breakdown_value ? { breakdown_value } : {}) });

  it('shows each cohort only the periods it has had, the last cohort one', () => {
    expect(periodsSeen([row(), row(), row()])).toEqual([3, 2, 1]);
  });

  it('counts the periods within each breakdown value', () => {
    expect(periodsSeen([row('a'), row('a'), row('b'), row('b')])).toEqual([2, 1, 2, 1]);
  });
});
