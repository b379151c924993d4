import { binOfLabel, histogramBins, histogramLevels } from '../../../src/modules/analytics/model/histogram-bins';

describe('histogram bins', () => {
  it('asks for quantiles at levels written with two decimals', () => {
    expect(histogramLevels(3)).toEqual([0, 0.33, 0.67, 1]);
    expect(histogramLevels(1)).toEqual([0, 1]);
  });

  it('makes a bin between each pair of edges, the last one reaching past the largest value, labelled as Python writes floats', () => {
    expect(histogramBins([10, 50, 90])).toEqual([
      { lo: 10, hi: 50, label: '[10.0,50.0]' },
      { lo: 50, hi: 90.01, label: '[50.0,90.01]' },
    ]);
    expect(histogramBins([2.5])).toEqual([{ lo: 2.5, hi: 2.51, label: '[2.5,2.51]' }]);
    expect(histogramBins([NaN])).toEqual([]);
  });

  it('reads a bin back from its label, and nothing from text that is no bin', () => {
    expect(binOfLabel('[10.0,50.0]')).toEqual({ lo: 10, hi: 50 });
    expect(binOfLabel('["",""]')).toBeNull();
    expect(binOfLabel('Chrome')).toBeNull();
  });
});
