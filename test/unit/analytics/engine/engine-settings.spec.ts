import { readSettings, setStatement, writeSettings } from '../../../../src/modules/analytics/engine/engine-settings';
import { LIMITS } from './engine-test-support';

describe('engine settings', () => {
  it('bounds every read in time, threads and memory, spilling past half of it, at a lower thread priority, building IN sets once', () => {
    expect(readSettings({ timeoutMs: 1500, maxThreads: 3, maxMemoryBytes: 64 * 1024 * 1024, threadPriority: 10 })).toEqual({
      output_format_json_quote_64bit_integers: 0,
      os_thread_priority: 10,
      max_execution_time: 1.5,
      max_memory_usage: 67_108_864,
      max_bytes_before_external_group_by: 33_554_432,
      max_bytes_before_external_sort: 33_554_432,
      max_threads: 3,
      use_index_for_in_with_subqueries: 0,
    });
  });

  it('makes writes synchronous and leaves them unbounded', () => {
    expect(writeSettings(LIMITS)).toEqual({ output_format_json_quote_64bit_integers: 0, os_thread_priority: 10, async_insert: 0 });
  });

  it('does not send the thread priority at all when it is 0', () => {
    expect(Object.keys(readSettings({ ...LIMITS, threadPriority: 0 }))).not.toContain('os_thread_priority');
  });

  it('writes the settings as one SET statement', () => {
    expect(setStatement({ max_threads: 2, max_execution_time: 0.5 })).toBe('SET max_threads = 2, max_execution_time = 0.5');
  });

  it('refuses a name or value that is not a plain setting', () => {
    expect(() => setStatement({ 'x; DROP TABLE t': 1 })).toThrow('invalid ClickHouse setting');
    expect(() => setStatement({ max_threads: Number.NaN })).toThrow('invalid ClickHouse setting');
  });
});
